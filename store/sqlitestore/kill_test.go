package sqlitestore_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ebbforge/adk/dispatch"
	"github.com/ebbforge/adk/forge"
)

const childEnv = "SQLITESTORE_KILL_CHILD"

// TestMain lets the test binary double as the process that gets killed.
func TestMain(m *testing.M) {
	if path := os.Getenv(childEnv); path != "" {
		writeUntilKilled(path)
		return
	}
	if mode := os.Getenv(runnerChildEnv); mode != "" {
		childMain(mode, os.Getenv("SQLITESTORE_DIR"))
		return
	}
	os.Exit(m.Run())
}

// writeUntilKilled saves entries forever, printing each one's index after
// its Save returned.
func writeUntilKilled(path string) {
	ctx := context.Background()
	s, err := openErr(path)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	if err := s.StartTurn(ctx, "conv", "t1"); err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	for i := 0; ; i++ {
		m, _ := dispatch.NewMessage(dispatch.RawMessage{ID: fmt.Sprintf("m%d", i), Role: dispatch.RoleUser, Content: forge.NewTokenizable(strings.Repeat(fmt.Sprintf("entry %d ", i), 50))})
		if err := s.Save(ctx, "t1", dispatch.Entry{Message: m}); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println("saved", i)
	}
}

// TestSIGKILLMidTurn kills a process that is writing a turn and checks that
// every entry it reported saved is there, in order and whole, and that the
// conversation continues with the cut-off turn marked interrupted.
func TestSIGKILLMidTurn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kill.db")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	last := -1
	for sc.Scan() && last < 200 {
		if _, err := fmt.Sscanf(sc.Text(), "saved %d", &last); err != nil {
			t.Fatalf("child: %s", sc.Text())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	ctx := context.Background()
	s := open(t, path)
	defer s.Close()
	es, err := s.Load(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if len(es) <= last {
		t.Fatalf("%d entries after the kill, but the child had reported %d saved", len(es), last+1)
	}
	for i, e := range es {
		want := strings.Repeat(fmt.Sprintf("entry %d ", i), 50)
		if e.ID() != fmt.Sprintf("m%d", i) || e.Message.Text() != want {
			t.Fatalf("entry %d is %q, not whole and in order", i, e.ID())
		}
	}
	if info, _, _ := s.Turn(ctx, "t1"); info.State != dispatch.TurnRunning {
		t.Errorf("state after the kill = %s, want running", info.State)
	}
	if err := s.StartTurn(ctx, "conv", "t2"); err != nil {
		t.Fatal(err)
	}
	if info, _, _ := s.Turn(ctx, "t1"); info.State != dispatch.TurnInterrupted {
		t.Errorf("state once the conversation moved on = %s, want interrupted", info.State)
	}
}
