package cmd2

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// answers serves lines with lead and decodes every answer line.
func answers(t *testing.T, lead Leader, lines ...string) []map[string]any {
	t.Helper()
	var out strings.Builder
	if err := ServeIO(strings.NewReader(strings.Join(lines, "\n")), &out, lead); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var answer map[string]any
		if err := json.Unmarshal([]byte(line), &answer); err != nil {
			t.Fatalf("answer %q: %v", line, err)
		}
		got = append(got, answer)
	}
	return got
}

func everyoneGetsNothing(p *Problem) Result {
	assignment := Assignment{}
	for _, m := range p.Members {
		assignment[m.ID] = map[string][]int32{}
	}
	return Result{Assignment: assignment, Adapted: "noted"}
}

func TestEachRequestIsAnsweredWithItsIDOnALineOfItsOwn(t *testing.T) {
	got := answers(t, everyoneGetsNothing,
		`{"format": 2, "id": 7, "problem": {"format": 1, "topics": {"t": 1}, "members": [{"id": "a", "subscription": ["t"]}]}}`,
		`{"format": 2, "id": 8, "problem": {"format": 1, "topics": {}, "members": []}}`)
	if len(got) != 2 || got[0]["id"] != 7.0 || got[1]["id"] != 8.0 {
		t.Fatalf("answers %v", got)
	}
	if a, ok := got[0]["assignment"].(map[string]any); !ok || len(a) != 1 || got[0]["adapted"] != "noted" {
		t.Errorf("first answer %v", got[0])
	}
	if a, ok := got[1]["assignment"].(map[string]any); !ok || len(a) != 0 { // {} for an empty group, not null
		t.Errorf("an empty group's answer %v", got[1])
	}
}

func TestARequestOrProblemItCannotReadIsAnErrorAnswerNamingWhy(t *testing.T) {
	got := answers(t, everyoneGetsNothing,
		`not json`,
		`{"format": 2, "id": 3, "problem": {"format": 1, "topics": {"t": 1}, "members": [], "extra": 1}}`,
		`{"format": 2, "id": 4, "problem": {"format": 1, "group_type": "consumer", "topics": {}, "members": []}}`)
	if got[0]["id"] != -1.0 || got[0]["exception"] != "request" {
		t.Errorf("a line that is no request: %v", got[0])
	}
	if got[1]["error"] != `problem: json: unknown field "extra"` || got[1]["exception"] != "problem" {
		t.Errorf("an unknown field: %v", got[1])
	}
	if !strings.HasPrefix(got[2]["error"].(string), "problem.group_type:") {
		t.Errorf("a broker-side group: %v", got[2])
	}
}

func indexTooFar(p *Problem) Result {
	return Result{Assignment: Assignment{p.Members[len(p.Members)].ID: {}}}
}

func TestAPanicIsAnErrorAnswerWithItsTypeAndFrameAndServingGoesOn(t *testing.T) {
	request := `{"format": 2, "id": 1, "problem": {"format": 1, "topics": {}, "members": []}}`
	got := answers(t, indexTooFar, request, strings.Replace(request, `"id": 1`, `"id": 2`, 1))
	if len(got) != 2 {
		t.Fatalf("answers %v", got)
	}
	for _, answer := range got {
		if answer["exception"] != "runtime.boundsError" || !strings.Contains(answer["frame"].(string), "indexTooFar(") {
			t.Errorf("a panic's answer %v", answer)
		}
	}
}

func TestAFailureKeepsItsIdentity(t *testing.T) {
	failing := func(*Problem) Result { return Result{Err: Failed("Plan", errors.New("no members"))} }
	got := answers(t, failing, `{"format": 2, "id": 1, "problem": {"format": 1, "topics": {}, "members": []}}`)
	if got[0]["error"] != "Plan: no members" || got[0]["exception"] != "error" || got[0]["frame"] != "Plan" {
		t.Errorf("a returned failure: %v", got[0])
	}
}
