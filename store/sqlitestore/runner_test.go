package sqlitestore_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
	"github.com/ebbforge/adk/llm"
	"github.com/ebbforge/adk/llm/scripted"
	"github.com/ebbforge/adk/store/sqlitestore"
	"github.com/ebbforge/adk/turnrunner"
)

// The child modes of the runner tests (see TestMain).
const (
	runnerChildEnv = "SQLITESTORE_RUNNER_CHILD" // "kill", "suspend" or "wait"
	childTurn      = "turn-1"
	childConv      = "conv-1"
)

type lookupArgs struct {
	Q string `json:"q"`
}

type payArgs struct {
	Amount int `json:"amount"`
}

// tools are the child's and the resuming parent's tools. lookup writes a
// 300-line result (spooled); hang blocks until the process dies; pay records
// every payment in the file paid so the parent can see what ran.
func tools(t testing.TB, paid string) []*forge.Tool {
	lookup, err := forge.NewTypedTool("lookup", "Look something up.", func(ctx context.Context, a lookupArgs, _ forge.Invocation) (forge.Output, error) {
		var b strings.Builder
		for i := range 300 {
			fmt.Fprintf(&b, "%s line %d\n", a.Q, i)
		}
		return forge.TextOutput(b.String()), nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	hang, err := forge.NewTypedTool("hang", "Never returns.", func(ctx context.Context, a lookupArgs, _ forge.Invocation) (forge.Output, error) {
		fmt.Println("hanging")
		<-ctx.Done()
		return forge.Output{}, ctx.Err()
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pay, err := forge.NewTypedTool("pay", "Pay an amount.", func(ctx context.Context, a payArgs, _ forge.Invocation) (forge.Output, error) {
		f, err := os.OpenFile(paid, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return forge.Output{}, err
		}
		defer f.Close()
		fmt.Fprintln(f, a.Amount)
		return forge.TextOutput(fmt.Sprintf("paid %d", a.Amount)), nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return []*forge.Tool{lookup, hang, pay}
}

// bigPayments is the approval policy: payments over 100 need a human.
func bigPayments(ctx context.Context, c turnrunner.ToolApproval) bool {
	var a payArgs
	return c.Tool == "pay" && json.Unmarshal(c.Args, &a) == nil && a.Amount > 100
}

func newRunner(t testing.TB, st *sqlitestore.Store, model llm.Model, paid string) *turnrunner.Runner {
	return newRunnerWith(t, st, model, paid, true)
}

func newRunnerWith(t testing.TB, st *sqlitestore.Store, model llm.Model, paid string, suspend bool) *turnrunner.Runner {
	r, err := turnrunner.New(model, &turnrunner.Options{Tools: tools(t, paid), Store: st, SpoolStore: st.SpoolStore(),
		Approval: bigPayments, SuspendOnApproval: suspend})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// childMain runs one turn of a conversation in a child process: "kill"
// hangs in a tool until the parent kills it; "suspend" ends suspended on an
// approval and exits.
func childMain(mode, dir string) {
	fail := func(err error) {
		fmt.Println("error", err)
		os.Exit(2)
	}
	st, err := openErr(filepath.Join(dir, "chat.db"))
	if err != nil {
		fail(err)
	}
	t := &testing.T{}
	var model *scripted.Model
	switch mode {
	case "kill":
		model = scripted.New(
			scripted.Use(scripted.Call{ID: "c1", Name: "lookup", Args: `{"q":"crab"}`}),
			scripted.Use(scripted.Call{ID: "c2", Name: "hang", Args: `{"q":"forever"}`}))
	case "suspend", "wait":
		model = scripted.New(scripted.Use(
			scripted.Call{ID: "p1", Name: "pay", Args: `{"amount":5}`},
			scripted.Call{ID: "p2", Name: "pay", Args: `{"amount":500}`},
			scripted.Call{ID: "p3", Name: "pay", Args: `{"amount":900}`},
			scripted.Call{ID: "p4", Name: "pay", Args: `{"amount":"lots"}`}))
	}
	r := newRunnerWith(t, st, model, filepath.Join(dir, "paid"), mode != "wait")
	ch, err := r.Run(context.Background(), turnrunner.Input{TurnID: childTurn, ConversationID: childConv, Prompt: "go"})
	if err != nil {
		fail(err)
	}
	for ev := range ch {
		switch e := ev.(type) {
		case turnrunner.GateOpen:
			fmt.Println("gate", e.Gate.ID())
		case turnrunner.TurnEnd:
			fmt.Println("end", e.Status)
		}
	}
	st.Close()
}

// runChild starts the child in mode and returns its output lines as they come.
func runChild(t *testing.T, mode, dir string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), runnerChildEnv+"="+mode, childEnv+"=", "SQLITESTORE_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, bufio.NewScanner(out)
}

func drain(t *testing.T, ch <-chan turnrunner.Event) (turnrunner.TurnEnd, []turnrunner.Event) {
	t.Helper()
	var evs []turnrunner.Event
	var end turnrunner.TurnEnd
	for ev := range ch {
		evs = append(evs, ev)
		if e, ok := ev.(turnrunner.TurnEnd); ok {
			end = e
		}
	}
	return end, evs
}

// reopenWithGates opens the child's database in dir (closed when the test
// ends) and reads its turn, which must be in state with the two gates of
// p2 (500) and p3 (900) open; answers approves p2 and denies p3.
func reopenWithGates(t *testing.T, dir string, state dispatch.TurnState) (*sqlitestore.Store, dispatch.TurnInfo, map[string]bool) {
	t.Helper()
	st := open(t, filepath.Join(dir, "chat.db"))
	t.Cleanup(func() { st.Close() })
	info, _, err := st.Turn(context.Background(), childTurn)
	if err != nil || info.State != state || len(info.Gates) != 2 {
		t.Fatalf("stored turn %+v, %v; want %s with 2 gates", info, err, state)
	}
	answers := map[string]bool{}
	for _, g := range info.Gates {
		answers[g.ID] = g.ToolCallID == "p2"
	}
	return st, info, answers
}

// checkModelSawResumedCalls checks the calls the resumed turn's model call
// saw: p1 and p2 paid, p3 denied, p4 refused for its arguments.
func checkModelSawResumedCalls(t *testing.T, model *scripted.Model) {
	t.Helper()
	seen := calls(model.Requests()[0].Timeline)
	for id, want := range map[string]string{"p1": "paid 5", "p2": "paid 500", "p3": "denied", "p4": "Invalid tool arguments"} {
		c := seen[id]
		if c == nil || !c.IsComplete() || !strings.Contains(text(t, c), want) {
			t.Errorf("call %s as the model saw it: %v, want %q", id, c, want)
		}
	}
}

func calls(es []dispatch.Entry) map[string]*forge.ToolCall {
	out := map[string]*forge.ToolCall{}
	for _, e := range es {
		if e.ToolCall != nil {
			out[e.ToolCall.ID()] = e.ToolCall
		}
	}
	return out
}

func text(t *testing.T, c *forge.ToolCall) string {
	t.Helper()
	s, err := llm.RenderResult(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSIGKILLMidTurnThenResume kills the process while a tool of the turn
// runs, then resumes the turn from the database in this process: the
// prompt, the first call and its spooled output are there, the cut-off call
// is reported to the model as interrupted (not run again), and the turn
// completes.
func TestSIGKILLMidTurnThenResume(t *testing.T) {
	dir := t.TempDir()
	cmd, sc := runChild(t, "kill", dir)
	for sc.Scan() && sc.Text() != "hanging" {
		if strings.HasPrefix(sc.Text(), "error") || strings.HasPrefix(sc.Text(), "end") {
			t.Fatalf("child: %s", sc.Text())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	ctx := context.Background()
	st := open(t, filepath.Join(dir, "chat.db"))
	defer st.Close()
	if info, _, _ := st.Turn(ctx, childTurn); info.State != dispatch.TurnRunning {
		t.Fatalf("state after the kill = %s, want running", info.State)
	}
	model := scripted.New(scripted.Say("The crab is a decapod."))
	r := newRunner(t, st, model, filepath.Join(dir, "paid"))
	ch, err := r.Resume(ctx, turnrunner.ResumeInput{TurnID: childTurn})
	if err != nil {
		t.Fatal(err)
	}
	if end, _ := drain(t, ch); end.Status != turnrunner.TurnCompleted {
		t.Fatalf("resumed turn ended %s: %v", end.Status, end.Err)
	}
	// What the model saw when it was called again: the whole turn so far.
	req := model.Requests()[0]
	seen := calls(req.Timeline)
	if c := seen["c1"]; c == nil || !strings.Contains(text(t, c), "crab line 299") {
		t.Errorf("the completed call before the kill is lost: %v", seen["c1"])
	}
	if c := seen["c2"]; c == nil || !c.IsComplete() || !c.IsError() || !strings.Contains(text(t, c), "interrupted") {
		t.Errorf("the cut-off call is not reported as interrupted: %+v", c)
	}
	es, err := st.Load(ctx, childTurn)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range es {
		kinds = append(kinds, string(e.Kind())+":"+e.ID())
	}
	if len(es) != 4 || es[0].Message == nil || es[0].Message.Text() != "go" || es[3].Message == nil ||
		es[3].Message.Text() != "The crab is a decapod." {
		t.Errorf("stored turn = %v, want prompt, c1, c2, answer", kinds)
	}
	if info, _, _ := st.Turn(ctx, childTurn); info.State != dispatch.TurnCompleted {
		t.Errorf("state after resume = %s, want completed", info.State)
	}
}

// TestRestartWithPendingApproval: a turn needing approvals is suspended and
// its process exits; a new process resumes it with the human's answers. The
// approvals of one response were asked together, only for the calls the
// policy picked (by arguments) whose arguments validated; the approved call
// runs once, the denied one is reported as denied, and the turn continues.
func TestRestartWithPendingApproval(t *testing.T) {
	dir := t.TempDir()
	cmd, sc := runChild(t, "suspend", dir)
	var gates []string
	var end string
	for sc.Scan() {
		switch f := strings.Fields(sc.Text()); f[0] {
		case "gate":
			gates = append(gates, f[1])
		case "end":
			end = f[1]
		default:
			t.Fatalf("child: %s", sc.Text())
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if end != string(turnrunner.TurnSuspended) || len(gates) != 2 {
		t.Fatalf("child ended %q with gates %v, want suspended with 2", end, gates)
	}
	paid := filepath.Join(dir, "paid")
	if b, _ := os.ReadFile(paid); string(b) != "5\n" {
		t.Fatalf("paid before approval: %q, want only the small payment", b)
	}

	ctx := context.Background()
	st, _, answers := reopenWithGates(t, dir, dispatch.TurnSuspended)
	model := scripted.New(scripted.Say("Paid 5 and 500; 900 was denied."))
	r := newRunner(t, st, model, paid)
	if _, err := r.Resume(ctx, turnrunner.ResumeInput{TurnID: childTurn}); !errors.Is(err, turnrunner.ErrInvalidTurnContext) {
		t.Errorf("Resume without answers = %v, want ErrInvalidTurnContext", err)
	}
	ch, err := r.Resume(ctx, turnrunner.ResumeInput{TurnID: childTurn, Approvals: answers})
	if err != nil {
		t.Fatal(err)
	}
	done, evs := drain(t, ch)
	if done.Status != turnrunner.TurnCompleted {
		t.Fatalf("resumed turn ended %s: %v", done.Status, done.Err)
	}
	results := map[turnrunner.GateResult]int{}
	for _, ev := range evs {
		if c, ok := ev.(turnrunner.GateClosed); ok {
			results[c.Result]++
		}
	}
	if results[turnrunner.GateResolved] != 1 || results[turnrunner.GateDenied] != 1 {
		t.Errorf("GateClosed results %v, want one resolved and one denied", results)
	}
	if b, _ := os.ReadFile(paid); string(b) != "5\n500\n" {
		t.Errorf("paid = %q, want 5 then 500 (900 denied)", b)
	}
	checkModelSawResumedCalls(t, model)
	if info, _, _ := st.Turn(ctx, childTurn); info.State != dispatch.TurnCompleted || len(info.Gates) != 0 {
		t.Errorf("after resume: %+v, want completed without gates", info)
	}
	if _, err := r.Resume(ctx, turnrunner.ResumeInput{TurnID: childTurn}); !errors.Is(err, turnrunner.ErrInvalidTurnContext) {
		t.Errorf("Resume of a completed turn = %v, want ErrInvalidTurnContext", err)
	}
}

// TestKilledWhileWaitingForApproval: a turn waiting in its process for two
// approvals (no SuspendOnApproval) is killed. The response's calls and the
// open gates were stored before the gates were announced, so a new process
// resumes the turn with the human's answers without asking the model
// again: the call that only waited for its response's approvals runs, the
// approved one runs, the denied one is reported as denied, and the turn
// completes.
func TestKilledWhileWaitingForApproval(t *testing.T) {
	dir := t.TempDir()
	cmd, sc := runChild(t, "wait", dir)
	var gates []string
	for len(gates) < 2 && sc.Scan() {
		f := strings.Fields(sc.Text())
		if f[0] != "gate" {
			t.Fatalf("child: %s", sc.Text())
		}
		gates = append(gates, f[1])
	}
	if len(gates) != 2 {
		t.Fatalf("child announced gates %v, want 2", gates)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	paid := filepath.Join(dir, "paid")
	if b, err := os.ReadFile(paid); err == nil {
		t.Fatalf("paid while waiting for approval: %q", b)
	}

	ctx := context.Background()
	st, info, answers := reopenWithGates(t, dir, dispatch.TurnRunning)
	for i, g := range info.Gates {
		if g.ID != gates[i] {
			t.Errorf("stored gate %d = %q, announced %q", i, g.ID, gates[i])
		}
	}
	model := scripted.New(scripted.Say("Paid 5 and 500; 900 was denied."))
	r := newRunnerWith(t, st, model, paid, false)
	ch, err := r.Resume(ctx, turnrunner.ResumeInput{TurnID: childTurn, Approvals: answers})
	if err != nil {
		t.Fatal(err)
	}
	if done, _ := drain(t, ch); done.Status != turnrunner.TurnCompleted {
		t.Fatalf("resumed turn ended %s: %v", done.Status, done.Err)
	}
	b, _ := os.ReadFile(paid)
	lines := strings.Fields(string(b))
	slices.Sort(lines)
	if !slices.Equal(lines, []string{"5", "500"}) {
		t.Errorf("paid = %q, want 5 and 500 once each (900 denied)", b)
	}
	if n := len(model.Requests()); n != 1 {
		t.Errorf("the model was called %d times on resume, want 1 (the answer)", n)
	}
	checkModelSawResumedCalls(t, model)
	es, err := st.Load(ctx, childTurn)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range es {
		kinds = append(kinds, string(e.Kind())+":"+e.ID())
	}
	if want := "message:" + es[0].ID() + " toolCall:p1 toolCall:p2 toolCall:p3 toolCall:p4 message:" + es[len(es)-1].ID(); strings.Join(kinds, " ") != want {
		t.Errorf("stored turn = %v, want the prompt, p1..p4 in order, the answer", kinds)
	}
	if info, _, _ := st.Turn(ctx, childTurn); info.State != dispatch.TurnCompleted || len(info.Gates) != 0 {
		t.Errorf("after resume: %+v, want completed without gates", info)
	}
}
