package copylint

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestDumpLocal(t *testing.T) {
	dir := os.Getenv("DUMP")
	if dir == "" {
		t.Skip()
	}
	fs, err := Lint(context.Background(), nil, []string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cache := map[string][]string{}
	for _, f := range fs {
		if cache[f.File] == nil {
			b, _ := os.ReadFile(f.File)
			cache[f.File] = strings.Split(string(b), "\n")
		}
		line := cache[f.File][f.Line-1]
		if len(line) > 220 {
			line = line[:220]
		}
		fmt.Printf("%s\t%d\t%s\t%s\n", strings.TrimPrefix(f.File, dir+"/"), f.Line, f.Rule, strings.TrimSpace(line))
	}
}
