package deps

import (
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/google/jsonschema-go/jsonschema"
	_ "github.com/google/uuid"
	_ "github.com/rs/zerolog"
	_ "github.com/tidwall/gjson"
	_ "github.com/tiktoken-go/tokenizer"
	_ "github.com/titanous/json5"
	_ "github.com/yuin/goldmark"
	_ "go.uber.org/goleak"
	_ "go.yaml.in/yaml/v3"
	_ "golang.org/x/sync/errgroup"
)
