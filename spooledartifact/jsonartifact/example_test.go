package jsonartifact_test

import (
	"context"
	"fmt"

	"github.com/ebbforge/adk/spooledartifact/jsonartifact"
)

// A JSON Lines tool result, queried the way the model queries it through
// the forged artifact_json_* tools.
func Example() {
	ctx := context.Background()
	export := `{"id":1,"user":"ada","orders":[{"total":73},{"total":12}]}
{"id":2,"user":"grace","orders":[]}
{"id":3,"user":"linus","orders":[{"total":240}]}
`
	k := jsonartifact.Kind{} // zero value: infer the format
	a, _ := k.Wrap(ctx, "call_42", newMem(export))
	for _, m := range k.Methods() {
		var args map[string]any
		switch m.Tool {
		case "artifact_json_type", "artifact_json_length":
		case "artifact_json_filter":
			args = map[string]any{"path": "orders.#(total>100)#"}
		case "artifact_json_pluck":
			args = map[string]any{"path": "orders.#.total"}
		default:
			continue
		}
		out, err := m.Call(ctx, a, args)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s %v:\n%s\n", m.Tool, args, out)
	}
	// Output:
	// artifact_json_type map[]:
	// jsonl
	// artifact_json_length map[]:
	// 3
	// artifact_json_filter map[path:orders.#(total>100)#]:
	// [
	//   {
	//     "id": 3,
	//     "user": "linus",
	//     "orders": [
	//       {
	//         "total": 240
	//       }
	//     ]
	//   }
	// ]
	// artifact_json_pluck map[path:orders.#.total]:
	// [
	//   73,
	//   12,
	//   240
	// ]
}

// The Go API streams records with iterators; nothing is capped there.
func ExampleArtifact_Pluck() {
	ctx := context.Background()
	a := jsonartifact.New("call_7", newMem(`{"items":[{"sku":"a"},{"sku":"b"}]}`), jsonartifact.Kind{})
	for v, err := range a.Pluck(ctx, "items.#.sku") {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(string(v))
	}
	// Output:
	// "a"
	// "b"
}

// Detect tells the format of bytes the way an artifact does.
func ExampleDetect() {
	for _, s := range []string{`{"a":1}`, "{\"a\":1}\n{\"a\":2}", "{a: 1, /* json5 */}", "a,b\n1,2"} {
		f, _, err := jsonartifact.Detect([]byte(s))
		fmt.Println(f, err != nil)
	}
	// Output:
	// json false
	// jsonl false
	// json5 false
	//  true
}
