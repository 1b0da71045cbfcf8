package guard

import (
	"fmt"
	"testing"
)

// typicalPipeline is a ten-command shell line of the kind agents send.
const typicalPipeline = `cat main.go | grep -n func | sort | uniq -c | sort -rn | head -20 | awk '{print $2}' | sed 's/a/b/' | tr a-z A-Z | wc -l`

// benchGrants returns n read grants spread over Downloads, plus the one the
// benchmarks use, so lookups must find it among many.
func benchGrants(fx *fixture, n int) *GrantSet {
	set := NewGrantSet()
	for i := range n {
		set.Add(Grant{ID: fmt.Sprint(i), Op: OpRead, Path: fmt.Sprintf("%s/g%03d/f%05d.csv", fx.D, i%100, i), Kind: KindFile})
	}
	set.Add(Grant{ID: "report", Op: OpRead, Path: fx.D + "/report.csv", Kind: KindFile})
	return set
}

// BenchmarkEvaluatePath checks one granted path with 10 and 10,000 grants
// present: the two must cost about the same (lookup is O(depth)).
func BenchmarkEvaluatePath(b *testing.B) {
	fx := newFixture(b)
	for _, n := range []int{10, 10000} {
		grants := benchGrants(fx, n)
		b.Run(fmt.Sprintf("grants=%d", n), func(b *testing.B) {
			req := Request{Op: OpRead, Path: fx.D + "/report.csv"}
			for b.Loop() {
				if d, err := Evaluate(fx.policy, grants, req); err != nil || d.Verdict != Allow {
					b.Fatalf("%v %+v", err, d)
				}
			}
		})
	}
}

// BenchmarkEvaluateShell analyses a typical ten-command pipeline, and the
// original Downloads read, with 10,000 grants present.
func BenchmarkEvaluateShell(b *testing.B) {
	fx := newFixture(b)
	grants := benchGrants(fx, 10000)
	for name, cmd := range map[string]string{
		"pipeline10": typicalPipeline,
		"downloads":  "cat ~/Downloads/report.csv | wc -l",
	} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if d, err := Evaluate(fx.policy, grants, Request{Shell: cmd}); err != nil || d.Verdict != Allow {
					b.Fatalf("%v %+v", err, d)
				}
			}
		})
	}
}

// BenchmarkKernelResolve is the baseline for BenchmarkEvaluatePath in the
// same run: the bare cost of asking the kernel about one path, which every
// path check pays. The difference is the guard's own work.
func BenchmarkKernelResolve(b *testing.B) {
	fx := newFixture(b)
	for b.Loop() {
		if _, ok := resolveKernel(fx.D+"/report.csv", true); !ok {
			b.Fatal("kernel fast path unavailable")
		}
	}
}
