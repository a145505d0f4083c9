package diff

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retryspec/retryspec/contract"
)

func TestFormattingIsNotAChange(t *testing.T) {
	old := parse(t, "full.yaml", readTestdata(t, "full.yaml"))
	new := parse(t, "reformatted.yaml", readTestdata(t, "reformatted.yaml"))
	if got := Compare(old, new); len(got) != 0 {
		for _, c := range got {
			t.Errorf("reported %s %s: %q -> %q", c.Class, c.Field, c.Old, c.New)
		}
	}
	if got := Compare(old, old); len(got) != 0 {
		t.Errorf("a contract differs from itself: %v", got)
	}
}

// TestEveryModelFieldIsCompared mutates every leaf of the model in turn and
// requires Compare to report it, with a classification row. A field added
// to the model and forgotten here fails this test.
func TestEveryModelFieldIsCompared(t *testing.T) {
	src := readTestdata(t, "full.yaml")
	base := parse(t, "full.yaml", src)
	var leaves []string
	walkModel(reflect.ValueOf(base).Elem(), "", func(path string, v reflect.Value) {
		leaves = append(leaves, path)
	})
	// Every field the model's types declare must be set somewhere in full.yaml.
	covered := map[string]bool{}
	for _, l := range leaves {
		covered[rowOf(l)] = true
	}
	var declared []string
	walkType(reflect.TypeOf(contract.Contract{}), "", func(p string) { declared = append(declared, p) })
	for _, p := range declared {
		if !covered[p] {
			t.Errorf("testdata/full.yaml does not set %s: set it so this test covers the field", p)
		}
	}
	if len(declared) < 60 {
		t.Fatalf("the model declares only %d leaves: the walk is broken", len(declared))
	}
	for _, leaf := range leaves {
		t.Run(leaf, func(t *testing.T) {
			c := parse(t, "full.yaml", src)
			mutated := false
			walkModel(reflect.ValueOf(c).Elem(), "", func(path string, v reflect.Value) {
				if path == leaf {
					mutate(t, v)
					mutated = true
				}
			})
			if !mutated {
				t.Fatal("leaf not found on second walk")
			}
			got := Compare(base, c)
			if len(got) == 0 {
				t.Fatalf("changing %s is not reported: add it to contractFacts/endpointFacts and a Table row", leaf)
			}
			for _, ch := range got {
				if _, ok := rowByField(ch.Row); !ok || ch.Why == "" {
					t.Errorf("change %+v has no row or no reason", ch)
				}
			}
		})
	}
}

// Fields that are not part of the contract's meaning.
var notCompared = map[string]string{
	"File":   "where the contract was loaded from",
	"Source": "the raw text; its meaning is the rest of the model",
}

// walkModel calls leaf for every scalar field and Duration of the model,
// descending into structs, pointers and every list element.
func walkModel(v reflect.Value, path string, leaf func(string, reflect.Value)) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		walkModel(v.Elem(), path, leaf)
	case reflect.Map:
		if !v.IsNil() {
			leaf(path, v)
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(contract.Duration{}) || v.Type() == reflect.TypeOf(contract.JSONValue{}) {
			leaf(path, v)
			return
		}
		if v.Type() == reflect.TypeOf(contract.Pos{}) {
			return // where a value is written, not what it is
		}
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			if _, skip := notCompared[f.Name]; skip && path == "" {
				continue
			}
			walkModel(v.Field(i), join(path, f.Name), leaf)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			walkModel(v.Index(i), fmt.Sprintf("%s[%d]", path, i), leaf)
		}
	default:
		leaf(path, v)
	}
}

// walkType lists the leaf fields the model declares, lists written as [].
func walkType(t reflect.Type, path string, leaf func(string)) {
	switch t.Kind() {
	case reflect.Pointer:
		walkType(t.Elem(), path, leaf)
	case reflect.Struct:
		switch t {
		case reflect.TypeOf(contract.Duration{}), reflect.TypeOf(contract.JSONValue{}):
			leaf(path)
			return
		case reflect.TypeOf(contract.Pos{}):
			return
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			if _, skip := notCompared[f.Name]; skip && path == "" {
				continue
			}
			walkType(f.Type, join(path, f.Name), leaf)
		}
	case reflect.Slice:
		walkType(t.Elem(), path+"[]", leaf)
	default:
		leaf(path)
	}
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

func mutate(t *testing.T, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Int:
		v.SetInt(v.Int() + 1)
	case reflect.Float64:
		v.SetFloat(v.Float() + 0.5)
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Map: // an example's path values
		for _, k := range v.MapKeys() {
			v.SetMapIndex(k, reflect.ValueOf(v.MapIndex(k).String()+"x"))
		}
	case reflect.Struct:
		if j, ok := v.Interface().(contract.JSONValue); ok {
			j.Members = append(slices.Clone(j.Members), contract.JSONMember{Name: "mutated", Value: contract.JSONValue{Kind: contract.JSONBool, Text: "true"}})
			v.Set(reflect.ValueOf(j))
			return
		}
		v.Set(reflect.ValueOf(contract.Duration{D: v.Field(0).Interface().(time.Duration) + time.Hour}))
	default:
		t.Fatalf("cannot mutate a %s: teach mutate about it", v.Kind())
	}
}

func TestTableIsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Table {
		if seen[r.Field] {
			t.Errorf("row %s listed twice", r.Field)
		}
		seen[r.Field] = true
		var dirs []Direction
		switch r.Kind {
		case Text, Enum, Number, Span, Flag:
			dirs = []Direction{Changed}
			if r.Kind == Number || r.Kind == Span || r.Kind == Flag {
				dirs = []Direction{Raised, Lowered}
			}
		case Set, Presence:
			dirs = []Direction{Added, Removed}
		case Sequence:
			dirs = []Direction{Changed}
		default:
			t.Errorf("row %s has no kind", r.Field)
		}
		for _, d := range dirs {
			if _, _, ok := r.outcome(d, ""); !ok {
				t.Errorf("row %s has no outcome for %s", r.Field, d)
			}
		}
		check := func(what string, o Outcome) {
			if o.Class < Compatible || o.Class > Breaking {
				t.Errorf("row %s %s: no class", r.Field, what)
			}
			if o.Why == "" {
				t.Errorf("row %s %s: no reason", r.Field, what)
			}
			if o.Class == Breaking && o.Migration == "" {
				t.Errorf("row %s %s: a breaking change needs a migration note", r.Field, what)
			}
			if strings.Contains(o.Why, "{value}") && r.Kind != Set {
				t.Errorf("row %s %s: {value} only exists for sets", r.Field, what)
			}
		}
		for d, o := range r.By {
			check(string(d), o)
		}
		for v, o := range r.To {
			if r.Kind != Enum {
				t.Errorf("row %s: To only applies to Enum rows", r.Field)
			}
			check("to "+v, o)
		}
	}
}
