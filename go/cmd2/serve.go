// Package cmd2 speaks assigncheck's cmd2: protocol (docs/TARGETS.md, "Programs in any language"): one request
// line of JSON on standard input, {"format": 2, "id": N, "problem": {...}}, answered by one line on standard
// output that repeats the id and carries the assignment, or an error with where it was raised. A client
// family's package (franzgo, saramabalance, kafkago) supplies the leader that turns a Problem into the
// assignment its members read; Serve does the rest.
package cmd2

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Assignment is member => topic => partitions: what each member of the group reads as its assignment.
type Assignment map[string]map[string][]int32

// Result is one problem's answer: the assignment every member read, or why there is none.
type Result struct {
	// Assignment lists every member of the group, with {} for one that gets nothing.
	Assignment Assignment
	// Adapted says how the client had to express the problem (reports show it beside its findings).
	Adapted string
	// Err is set when the leader failed: an error answer, an H7 finding. A *Failure names its identity.
	Err error
}

// Failure is an error with its identity: Exception the kind of failure (a panic value's type, or "error"),
// Frame where it was raised. Two failures of one identity are one bug.
type Failure struct {
	Err       error
	Exception string
	Frame     string
}

func (f *Failure) Error() string { return f.Err.Error() }
func (f *Failure) Unwrap() error { return f.Err }

// Failed is a returned error as a Failure raised in frame (a function name): exception "error".
func Failed(frame string, err error) *Failure {
	return &Failure{Err: fmt.Errorf("%s: %w", frame, err), Exception: "error", Frame: frame}
}

// Leader leads one problem's group as a client's group leader does.
type Leader func(*Problem) Result

// Serve answers requests on standard input until it ends, then returns; an I/O error is one line on standard
// error and exit status 1.
func Serve(lead Leader) {
	if err := ServeIO(os.Stdin, os.Stdout, lead); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", filepath.Base(os.Args[0]), err)
		os.Exit(1)
	}
}

// request is one cmd2: request line.
type request struct {
	Format  int             `json:"format"`
	ID      *int64          `json:"id"`
	Problem json.RawMessage `json:"problem"`
}

// answer is one cmd2: answer line.
type answer struct {
	Format     int         `json:"format"`
	ID         int64       `json:"id"`
	Assignment *Assignment `json:"assignment,omitempty"` // a pointer: {} for an empty group
	Error      string      `json:"error,omitempty"`
	Exception  string      `json:"exception,omitempty"`
	Frame      string      `json:"frame,omitempty"`
	Adapted    string      `json:"adapted,omitempty"`
}

// ServeIO answers requests read from in on out, one line at a time, until in ends.
func ServeIO(in io.Reader, out io.Writer, lead Leader) error {
	reader := bufio.NewReaderSize(in, 1<<20)
	writer := bufio.NewWriterSize(out, 1<<20)
	encoder := json.NewEncoder(writer) // one line per answer
	for {
		line, err := reader.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			if err := encoder.Encode(handle(lead, line)); err != nil {
				return err
			}
			if err := writer.Flush(); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func handle(lead Leader, line []byte) answer {
	var req request
	if err := json.Unmarshal(line, &req); err != nil || req.Format != 2 || req.ID == nil || req.Problem == nil {
		why := "a request is {\"format\": 2, \"id\": N, \"problem\": {...}}"
		if err != nil {
			why = err.Error()
		}
		return answer{Format: 2, ID: -1, Error: "bad request: " + why, Exception: "request"}
	}
	a := answer{Format: 2, ID: *req.ID}
	problem, err := ParseProblem(req.Problem)
	if err != nil {
		a.Error, a.Exception = err.Error(), "problem"
		return a
	}
	result := Protect(func() Result { return lead(problem) })
	a.Adapted = result.Adapted
	if result.Err != nil {
		a.Error, a.Exception, a.Frame = result.Err.Error(), "error", ""
		var failure *Failure
		if errors.As(result.Err, &failure) {
			a.Exception, a.Frame = failure.Exception, failure.Frame
		}
		return a
	}
	assignment := result.Assignment
	if assignment == nil {
		assignment = Assignment{}
	}
	a.Assignment = &assignment
	return a
}

// Protect runs run, turning a panic into a Failure with the panic value's type and the frame that raised it: a
// balancer's crash is its H7 finding, not the end of the target.
func Protect(run func() Result) (result Result) {
	defer func() {
		if r := recover(); r != nil {
			result = Result{Err: &Failure{Err: fmt.Errorf("panic: %v", r), Exception: fmt.Sprintf("%T", r),
				Frame: panicFrame()}}
		}
	}()
	return run()
}

// panicFrame is where the panic being recovered was raised: the innermost frame outside the Go runtime,
// as function(file:line).
func panicFrame() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	inPanic := false
	for {
		frame, more := frames.Next()
		if strings.HasPrefix(frame.Function, "runtime.") {
			inPanic = inPanic || frame.Function == "runtime.gopanic"
		} else if inPanic {
			return fmt.Sprintf("%s(%s:%d)", frame.Function, filepath.Base(frame.File), frame.Line)
		}
		if !more {
			return "unknown"
		}
	}
}

// Join joins the non-empty notes with "; ".
func Join(notes ...string) string {
	var kept []string
	for _, n := range notes {
		if n != "" {
			kept = append(kept, n)
		}
	}
	return strings.Join(kept, "; ")
}

// StrangersNote says that a plan named members the group does not have (the coordinator hands their
// assignments to nobody); "" when there are none.
func StrangersNote(strangers []string) string {
	if len(strangers) == 0 {
		return ""
	}
	return fmt.Sprintf("the plan names %d member(s) not in the group (%s): the coordinator hands those "+
		"assignments to nobody", len(strangers), strings.Join(strangers[:min(3, len(strangers))], ", "))
}
