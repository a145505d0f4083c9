package storage

import (
	"bufio"
	"fmt"
	"strings"
)

// Render writes the schema as one SQL file: the header, the DDL, then each
// statement under its `-- name: X :kind` line, its documentation and a
// `-- params:` line naming the placeholders in order.
func (s *Schema) Render() string {
	return s.comment() + s.renderDDL() + s.renderStatements()
}

// Files splits Render in two, as sqlc's schema and queries files: the
// header and the DDL alone (a file `psql -f`, `mysql <`, `sqlite3` or a
// migration tool applies as it is), and the header and the named
// statements.
func (s *Schema) Files() (schema, queries string) {
	return s.comment() + strings.TrimSuffix(s.renderDDL(), "\n"), s.comment() + s.renderStatements()
}

func (s *Schema) comment() string {
	var b strings.Builder
	for _, h := range s.header {
		b.WriteString("-- " + oneLine(h) + "\n")
	}
	b.WriteString("\n")
	return b.String()
}

func (s *Schema) renderDDL() string {
	var b strings.Builder
	for _, ddl := range s.DDL {
		b.WriteString(ddl + ";\n\n")
	}
	// The upgrades are comments: CREATE TABLE IF NOT EXISTS leaves an
	// existing table as it is, and an ALTER TABLE that adds a column the
	// table has fails (MySQL and SQLite have no ADD COLUMN IF NOT EXISTS).
	if len(s.Upgrades) > 0 {
		b.WriteString("-- A key table created by an earlier release lacks these columns; add each one it lacks\n")
		b.WriteString("-- (stores.Open with migrate does it). Rows written before hold NULL there.\n")
		for _, u := range s.Upgrades {
			b.WriteString("--   " + u.SQL + ";\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func (s *Schema) renderStatements() string {
	var b strings.Builder
	for i, st := range s.Statements {
		fmt.Fprintf(&b, "-- name: %s %s\n", st.Name, st.Kind)
		for _, d := range st.Doc {
			b.WriteString("-- " + oneLine(d) + "\n")
		}
		if len(st.Params) > 0 {
			b.WriteString("-- params: " + strings.Join(st.Params, ", ") + "\n")
		}
		b.WriteString(st.SQL + ";\n")
		if i < len(s.Statements)-1 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// Parse reads the named statements back from a rendered file (the
// convention sqlc and yesql read). The golden-file tests use it to prove the
// stores run what the file shows.
func Parse(text string) ([]Statement, error) {
	var out []Statement
	var cur *Statement
	var sql []string
	flush := func() {
		if cur != nil {
			cur.SQL = strings.TrimSuffix(strings.Join(sql, "\n"), ";")
			out = append(out, *cur)
		}
		cur, sql = nil, nil
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "-- name: "):
			flush()
			f := strings.Fields(strings.TrimPrefix(l, "-- name: "))
			if len(f) != 2 {
				return nil, fmt.Errorf("line %d: want `-- name: Name :kind`", line)
			}
			name, ok := parseStatementName(f[0])
			if !ok {
				return nil, fmt.Errorf("line %d: no statement is called %q", line, f[0])
			}
			cur = &Statement{Name: name, Kind: Kind(f[1])}
		case cur == nil:
		case strings.HasPrefix(l, "-- params: "):
			cur.Params = strings.Split(strings.TrimPrefix(l, "-- params: "), ", ")
		case strings.HasPrefix(l, "-- ") && len(sql) == 0:
			cur.Doc = append(cur.Doc, strings.TrimPrefix(l, "-- "))
		case l == "":
		default:
			sql = append(sql, l)
		}
	}
	flush()
	return out, sc.Err()
}
