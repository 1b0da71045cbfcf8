package grants

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// TestEveryKindIsAudited: every Kind declared in audit.go is listed by
// Kinds, has a label, and is taken by Store.Audit. A kind one of them
// misses is a record the store refuses (as the after-run check's were:
// none of its findings reached the log).
func TestEveryKindIsAudited(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "p.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, k := range declaredKinds(t) {
		t.Run(string(k), func(t *testing.T) {
			if !slices.Contains(Kinds(), k) {
				t.Error("not in Kinds()")
			}
			if _, ok := kindLabels[k]; !ok {
				t.Error("no label in kindLabels")
			}
			if err := st.Audit(Record{Kind: k, Session: "s", Path: "/w/a", Reason: "test"}); err != nil {
				t.Errorf("refused by the store: %v", err)
			}
		})
	}
}

// declaredKinds are the constants of type Kind in audit.go.
func declaredKinds(t *testing.T) []Kind {
	f, err := parser.ParseFile(token.NewFileSet(), "audit.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []Kind
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Kind" {
			return true
		}
		for _, v := range vs.Values {
			if lit, ok := v.(*ast.BasicLit); ok {
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, Kind(s))
			}
		}
		return true
	})
	if len(out) < 10 {
		t.Fatalf("found %d kinds in audit.go: the parse is wrong", len(out))
	}
	return out
}
