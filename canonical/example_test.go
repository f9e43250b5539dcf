package canonical_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/ebbforge/adk/canonical"
)

func ExampleStringifyJSON() {
	text, err := canonical.StringifyJSON([]byte(`{ "b": [1.50, 1e21, "\u00e9<&>"], "a": -0, "a": true }`))
	if err != nil {
		panic(err)
	}
	fmt.Println(text)
	// Output: {"a":true,"b":[1.5,1e+21,"é<&>"]}
}

func ExampleStringify() {
	text, err := canonical.Stringify(map[string]any{
		"z":  []int{3, 2, 1},
		"ｚ":  "fullwidth z (U+FF5A) sorts after astral characters in UTF-16",
		"😀":  nil,
		"n":  json.Number("100.0"),
		"f":  1e21,
		"ok": true,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(text)
	// Output: {"f":1e+21,"n":100,"ok":true,"z":[3,2,1],"😀":null,"ｚ":"fullwidth z (U+FF5A) sorts after astral characters in UTF-16"}
}

func ExampleChecksum() {
	// The same arguments, however they arrive, give the same checksum.
	fromRaw, _ := canonical.Checksum("get_weather", json.RawMessage(`{"unit":"C", "city":"Paris"}`))
	fromValue, _ := canonical.Checksum("get_weather", map[string]string{"city": "Paris", "unit": "C"})
	fmt.Println(fromRaw)
	fmt.Println(fromRaw == fromValue)
	// Output:
	// 149dfa83c966307f37bc83155e31b1fd100e4ba70b4bcd34d24123e716697845
	// true
}

func ExampleWriteJSON() {
	if err := canonical.WriteJSON(os.Stdout, []byte(`[{"b":2,"a":1}, 0.10]`)); err != nil {
		panic(err)
	}
	fmt.Println()
	// Output: [{"a":1,"b":2},0.1]
}
