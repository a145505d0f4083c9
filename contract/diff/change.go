package diff

import (
	"encoding/json"
	"fmt"

	"github.com/retryspec/retryspec/contract"
)

// Class is what a change means for an integrator. The order matters: a
// higher class is worse, and reports list the worst first.
type Class int

const (
	// Compatible changes nothing an integrator sends, receives or decides:
	// documentation text, tooling configuration.
	Compatible Class = iota + 1
	// Notable keeps old clients working but is worth adopting or knowing:
	// more attempts, a longer window, a new endpoint.
	Notable
	// Breaking makes a client written against the old contract misbehave or
	// be refused: a shorter window, a renamed header or code, a dropped key.
	Breaking
)

// Classes lists the classes worst first, the order reports use.
var Classes = []Class{Breaking, Notable, Compatible}

func (c Class) String() string {
	switch c {
	case Compatible:
		return "compatible"
	case Notable:
		return "notable"
	case Breaking:
		return "breaking"
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

// MarshalJSON writes the class by name.
func (c Class) MarshalJSON() ([]byte, error) { return json.Marshal(c.String()) }

// UnmarshalJSON reads a class by name.
func (c *Class) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	for _, k := range Classes {
		if k.String() == s {
			*c = k
			return nil
		}
	}
	return fmt.Errorf("unknown change class %q", s)
}

// Change is one semantic difference between two contracts.
type Change struct {
	// Field is the contract path of the changed value in the new contract
	// ("idempotency.replay_window", "endpoints[2].key"); for something
	// removed, its path in the old contract.
	Field string `json:"field"`
	// Row is the classification row that decided the class
	// ("endpoints[].key"); see Table.
	Row   string `json:"row"`
	Class Class  `json:"class"`
	// Direction is how the value moved: raised, lowered, changed, added, removed.
	Direction Direction `json:"direction"`
	// Old and New are the values as the contracts write them; "" when absent.
	Old string `json:"old"`
	New string `json:"new"`
	// Why says what the change means for an integrator.
	Why string `json:"why"`
	// Migration says what an integrator should do, when anything.
	Migration string `json:"migration,omitempty"`
	// Endpoint is the operation ("POST /v1/transfers") for endpoint changes.
	Endpoint string `json:"endpoint,omitempty"`
	// Acknowledged is set when the new contract adds a `changes:` entry for
	// this field; Because is that entry's reason.
	Acknowledged bool   `json:"acknowledged"`
	Because      string `json:"because,omitempty"`
	// Pos is where the change sits in the new contract (the nearest written
	// parent for something removed).
	Pos contract.Pos `json:"pos"`

	// rule names the Table entry that decided the class, for tests.
	rule string
	// The templates behind Why and Migration and the set element, so the
	// Markdown encoder can set values in code spans.
	whyTmpl, migrationTmpl, value string
}

// Blocking reports whether the change should fail a CI run: breaking and
// not acknowledged.
func (c Change) Blocking() bool { return c.Class == Breaking && !c.Acknowledged }

// Summary counts changes by class.
type Summary struct {
	Breaking       int `json:"breaking"`
	Unacknowledged int `json:"unacknowledged_breaking"`
	Notable        int `json:"notable"`
	Compatible     int `json:"compatible"`
}

// Summarize counts the changes by class.
func Summarize(cs []Change) Summary {
	var s Summary
	for _, c := range cs {
		switch c.Class {
		case Breaking:
			s.Breaking++
			if !c.Acknowledged {
				s.Unacknowledged++
			}
		case Notable:
			s.Notable++
		case Compatible:
			s.Compatible++
		}
	}
	return s
}
