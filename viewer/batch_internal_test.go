package viewer

import (
	"fmt"
	"testing"
)

// TestCallBatchBounds splits the questions of WriteStatic into batches of
// at most maxBatchItems items (questions times the trials on their
// benchmark) and maxBatchQuestions questions, each at least one question
// long, and covers every question once.
func TestCallBatchBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		trials    int // on the one benchmark
		questions int
		want      []int // batch lengths, by hand from the bounds
	}{
		// 1 item a question: the question bound, 500.
		{"one trial", 1, 1001, []int{500, 500, 1}},
		// 10 items a question: both bounds at 500 questions.
		{"both bounds", 10, 1000, []int{500, 500}},
		// 11 items a question: 5000/11 = 454 questions (4994 items).
		{"item bound", 11, 1000, []int{454, 454, 92}},
		// More items than the bound: one question a batch.
		{"one question over the bound", maxBatchItems + 1, 2, []int{1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := &Viewer{}
			for i := range tc.trials {
				v.trials = append(v.trials, trialRef{id: fmt.Sprint(i), bench: "b"})
			}
			for i := range tc.questions {
				v.questions = append(v.questions, questionRef{bench: "b", id: fmt.Sprint(i)})
			}
			var got []int
			for lo := 0; lo < len(v.questions); {
				hi := v.callBatch(lo)
				if hi <= lo {
					t.Fatalf("callBatch(%d) = %d; want past %d", lo, hi, lo)
				}
				got = append(got, hi-lo)
				lo = hi
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("batches %v; want %v", got, tc.want)
			}
		})
	}
}
