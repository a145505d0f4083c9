package hostiletest

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// TestServeRefusesForeignHosts (issue 13 item 9): serve answers only
// requests whose Host is the address it listens on, or localhost,
// 127.0.0.1 or [::1] with its port. A web page that rebinds a DNS name of
// its own to 127.0.0.1 (DNS rebinding) gets no page and no build error.
// Loopback only.
func TestServeRefusesForeignHosts(t *testing.T) {
	if placeholder(t, "serve") {
		t.Skip("SKIPPED: serve is not implemented on this branch yet")
	}
	sb := newSandbox(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), "serve", "-c", "retryspec.yaml", "--addr", "127.0.0.1:0")
	cmd.Dir = sb.work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + sb.home, "TMPDIR=" + sb.tmp}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
	}()
	urlc := make(chan string, 1)
	go func() {
		defer close(urlc) // serve exited: no URL will come
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/`)
		for sc.Scan() {
			if m := re.FindString(sc.Text()); m != "" {
				select {
				case urlc <- m:
				default:
				}
			}
		}
	}()
	// Waits on serve's own line (or its exit), not on a clock.
	base, ok := <-urlc
	if !ok {
		t.Fatal("serve exited without printing its URL")
	}
	u, _ := url.Parse(base)
	port := u.Port()
	get := func(host string) (int, string) {
		req, _ := http.NewRequest("GET", base+"index.html", nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("Host %s: %v", host, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port} {
		if code, body := get(host); code != 200 || !strings.Contains(body, "<html") {
			t.Errorf("Host %s: status %d, want the page", host, code)
		}
	}
	for _, host := range []string{"rebind.attacker.example:" + port, "localhost.attacker.example:" + port, "127.0.0.1:1", "localhost", "attacker.example"} {
		if code, body := get(host); code == 200 || strings.Contains(body, "<html") {
			t.Errorf("Host %s: status %d; a foreign Host got the page", host, code)
		}
	}
}
