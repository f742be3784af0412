//go:build js && wasm

// Command jsonnet-wasm exposes go-jsonnet to JavaScript (GOOS=js GOARCH=wasm).
//
// It links the same go-jsonnet fork as the Keboola Stream service
// (keboola/keboola-as-code go.mod: replace github.com/google/go-jsonnet =>
// github.com/keboola/go-jsonnet v0.22.1-0.20260427095904-b7e5c35127af), so parse
// errors, runtime error messages, the std library and number/string output are
// the service's own.
//
// The bridge is generic: the Keboola template globals (Ip, Body, Header, Now, ...)
// are defined by jsonnet/globals.ts and passed to configure(). Evaluation mirrors
// the service (internal/pkg/encoding/jsonnet/vm.go VM.Evaluate and VM.Validate,
// internal/pkg/service/stream/mapping/jsonnet/jsonnet.go Evaluate):
//   - compile = parser.SnippetToAst(code, "", globals...) -> "1:1-8 Unknown variable: X"
//   - evaluate = SnippetToRawAST + PreprocessAst + vm.Evaluate + json.Compact;
//     a RuntimeError is reported by its Msg only (no "RUNTIME ERROR:" prefix, no trace).
//
// One deliberate difference: go-jsonnet's frozen VM does not unwind its call stack
// when an evaluation fails, so after a few hundred failed evaluations every
// evaluation fails with "max stack frames exceeded.". We rebuild the VM after each
// failed evaluation instead of inheriting that state.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"syscall/js"

	jsonnet "github.com/google/go-jsonnet"
	"github.com/google/go-jsonnet/ast"
	"github.com/google/go-jsonnet/parser"
)

type nativeSpec struct {
	Name   string   `json:"name"`
	Params []string `json:"params"`
}

type spec struct {
	Natives []nativeSpec      `json:"natives"`
	Binds   map[string]string `json:"binds"`
}

var (
	currentSpec spec
	dispatch    js.Value
	vm          *jsonnet.VM
	astCache    = map[string]ast.Node{}
)

// nopImporter rejects imports with the service's message (internal/pkg/encoding/jsonnet/nopimporter.go).
type nopImporter struct{}

func (nopImporter) Import(_, _ string) (jsonnet.Contents, string, error) {
	return jsonnet.Contents{}, "", errors.New("imports are not enabled")
}

func callDispatch(name string, in []any) (any, error) {
	argsJSON, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	out := dispatch.Invoke(name, string(argsJSON)).String()
	var res struct {
		V any     `json:"v"`
		E *string `json:"e"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		return nil, err
	}
	if res.E != nil {
		return nil, errors.New(*res.E)
	}
	return res.V, nil
}

func buildVM() (*jsonnet.VM, error) {
	v := jsonnet.MakeVM()
	v.Importer(nopImporter{})
	for _, n := range currentSpec.Natives {
		name := n.Name
		params := make(ast.Identifiers, 0, len(n.Params))
		for _, p := range n.Params {
			params = append(params, ast.Identifier(p))
		}
		v.NativeFunction(&jsonnet.NativeFunction{
			Name:   name,
			Params: params,
			Func:   func(in []any) (any, error) { return callDispatch(name, in) },
		})
	}
	for name, src := range currentSpec.Binds {
		node, err := jsonnet.SnippetToAST("", src)
		if err != nil {
			return nil, errors.New("bind " + name + ": " + err.Error())
		}
		v.Bind(ast.Identifier(name), node)
	}
	if err := v.Freeze(); err != nil {
		return nil, err
	}
	return v, nil
}

// configure(specJSON, dispatch) -> "" | error message.
// dispatch(name, argsJSON) must return JSON text {"v": value} or {"e": "message"}.
func configure(_ js.Value, args []js.Value) any {
	var s spec
	if err := json.Unmarshal([]byte(args[0].String()), &s); err != nil {
		return err.Error()
	}
	currentSpec = s
	dispatch = args[1]
	astCache = map[string]ast.Node{}
	v, err := buildVM()
	if err != nil {
		return err.Error()
	}
	vm = v
	return ""
}

// compile(code) -> "" | static error text.
func compile(_ js.Value, args []js.Value) any {
	if _, err := parser.SnippetToAst(args[0].String(), "", vm.GlobalVars()...); err != nil {
		return err.Error()
	}
	return ""
}

// evaluate(code) -> [true, compactJSON] | [false, error message].
func evaluate(_ js.Value, args []js.Value) any {
	out, err := eval(args[0].String())
	if err != nil {
		if v, buildErr := buildVM(); buildErr == nil {
			vm = v
		}
		return []any{false, err.Error()}
	}
	return []any{true, out}
}

func eval(code string) (string, error) {
	node, ok := astCache[code]
	if !ok {
		raw, _, err := parser.SnippetToRawAST(code, "")
		if err != nil {
			return "", errors.New("cannot parse jsonnet: " + err.Error())
		}
		if err := parser.PreprocessAst(&raw, vm.GlobalVars()...); err != nil {
			return "", err
		}
		if len(astCache) > 1000 {
			astCache = map[string]ast.Node{}
		}
		astCache[code] = raw
		node = raw
	}
	res, err := vm.Evaluate(node)
	if err != nil {
		var rtErr jsonnet.RuntimeError
		if errors.As(err, &rtErr) {
			return "", errors.New(rtErr.Msg)
		}
		return "", errors.New("jsonnet error: " + err.Error())
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(res)); err != nil {
		return "", err
	}
	return buf.String(), nil
}

func main() {
	api := js.Global().Get("Object").New()
	api.Set("configure", js.FuncOf(configure))
	api.Set("compile", js.FuncOf(compile))
	api.Set("evaluate", js.FuncOf(evaluate))
	api.Set("version", jsonnet.Version())
	js.Global().Set("__keboolaJsonnet", api)
	select {}
}
