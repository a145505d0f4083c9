package diff

import (
	"strconv"
	"strings"

	"github.com/retryspec/retryspec/contract"
)

// Acknowledge marks the changes that the new contract acknowledges: a
// `changes:` entry whose field names the change's field, a parent of it
// ("retry" covers "retry.max_attempts"), its row ("endpoints[].key"), or an
// endpoint by operation ("endpoints[POST /v1/transfers].key").
//
// Only entries the new contract adds count. An entry already present in the
// old contract acknowledged an earlier change; letting it through again
// would wave every later change of the same field past CI unseen.
func Acknowledge(cs []Change, old, new *contract.Contract) {
	for _, a := range freshAcknowledgements(old, new) {
		for i := range cs {
			if !cs[i].Acknowledged && acknowledges(a.Field, cs[i]) {
				cs[i].Acknowledged, cs[i].Because = true, a.Because
			}
		}
	}
}

// Unused returns the acknowledgements the new contract adds that match no
// change: a typo in a field name, or a change that was reverted.
func Unused(cs []Change, old, new *contract.Contract) []contract.Change {
	var out []contract.Change
	for _, a := range freshAcknowledgements(old, new) {
		used := false
		for _, c := range cs {
			if acknowledges(a.Field, c) {
				used = true
				break
			}
		}
		if !used {
			out = append(out, a)
		}
	}
	return out
}

func freshAcknowledgements(old, new *contract.Contract) []contract.Change {
	if new == nil {
		return nil
	}
	seen := map[[2]string]bool{}
	if old != nil {
		for _, a := range old.Changes {
			seen[[2]string{strings.TrimSpace(a.Field), a.Because}] = true
		}
	}
	var out []contract.Change
	for _, a := range new.Changes {
		if !seen[[2]string{strings.TrimSpace(a.Field), a.Because}] {
			out = append(out, a)
		}
	}
	return out
}

func acknowledges(field string, c Change) bool {
	f := strings.TrimSpace(field)
	if f == "" {
		return false
	}
	if covers(f, c.Field) || f == c.Row {
		return true
	}
	// endpoints[METHOD /path].rest names the endpoint by operation.
	if c.Endpoint == "" || !strings.HasPrefix(f, "endpoints[") {
		return false
	}
	end := strings.IndexByte(f, ']')
	if end < 0 {
		return false
	}
	inner, rest := f[len("endpoints["):end], f[end+1:]
	if _, err := strconv.Atoi(inner); err == nil {
		return false // an index, handled by covers
	}
	m, p, err := contract.ParseOperation(inner)
	if err != nil {
		return false
	}
	cm, cp, err := contract.ParseOperation(c.Endpoint)
	if err != nil || m != cm || contract.PathShape(p) != contract.PathShape(cp) {
		return false
	}
	// The change's own suffix after endpoints[N].
	cend := strings.IndexByte(c.Field, ']')
	if cend < 0 {
		return false
	}
	return covers(rest, c.Field[cend+1:])
}

// covers reports whether path parent names field or one of its ancestors.
func covers(parent, field string) bool {
	if parent == field {
		return true
	}
	return strings.HasPrefix(field, parent) && (field[len(parent)] == '.' || field[len(parent)] == '[')
}
