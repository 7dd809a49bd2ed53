// The Temporal dev server that dropflow runs: `server start-dev` of the Temporal CLI, on the server
// and UI that the CLI release named in cli.ts bundles.
//
// That release cannot be built from the Go module proxy as it stands: its go.mod replaces a
// nested module (cliext) that the module's zip leaves out and the proxy does not serve, and only
// the command layer needs it. So cli.ts copies the downloaded module, drops that requirement,
// puts this file in it as a command of its own and builds it there, which is what lets it use the
// CLI's own dev-server package (internal/devserver) unchanged. This file only turns the
// `temporal server start-dev` flags that dropflow and the TypeScript SDK pass into that
// package's options; anything else is refused with a clear error. Formatted with gofmt.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/google/uuid"
	"github.com/temporalio/cli/internal/devserver"
	"go.temporal.io/api/enums/v1"
)

// As the CLI sets them: a search attribute is usable as soon as it is created (dropflow creates
// its own at start), with persistence quotas raised to match the cache it then skips.
var defaultDynamicConfig = map[string]any{
	"system.forceSearchAttributesCacheRefreshOnRead": true,
	"system.forceNexusEndpointRefreshOnRead":         true,
	"frontend.persistenceMaxQPS":                     10000,
	"history.persistenceMaxQPS":                      45000,
}

// Set at build time (cli.ts): which CLI release, server and UI this is.
var version = "unknown"

type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

type startDev struct {
	ip, uiIP, dbFilename, logFormat, logLevel, output string
	uiCodecEndpoint, uiPublicPath, uiAssetPath        string
	port, httpPort, uiPort, metricsPort               int
	headless                                          bool
	namespaces, dynamicConfig, searchAttrs, pragmas   repeated
}

func parse(args []string) (*startDev, error) {
	f := flag.NewFlagSet("temporal server start-dev", flag.ContinueOnError)
	s := &startDev{}
	f.StringVar(&s.ip, "ip", "127.0.0.1", "IP address of the frontend")
	f.IntVar(&s.port, "port", 7233, "frontend gRPC port")
	f.IntVar(&s.httpPort, "http-port", 0, "frontend HTTP port (a free one when 0)")
	f.IntVar(&s.metricsPort, "metrics-port", 0, "metrics port (a free one when 0)")
	f.StringVar(&s.uiIP, "ui-ip", "", "IP address of the UI (the frontend's when empty)")
	f.IntVar(&s.uiPort, "ui-port", 0, "UI port (port + 1000 when 0)")
	f.BoolVar(&s.headless, "headless", false, "no UI")
	f.StringVar(&s.uiCodecEndpoint, "ui-codec-endpoint", "", "codec server the UI decodes payloads with")
	f.StringVar(&s.uiPublicPath, "ui-public-path", "", "path the UI is served under")
	f.StringVar(&s.uiAssetPath, "ui-asset-path", "", "UI assets to serve instead of the built-in ones")
	f.StringVar(&s.output, "output", "text", "none: no banner on stdout")
	f.StringVar(&s.dbFilename, "db-filename", "", "SQLite file (in memory when empty)")
	f.StringVar(&s.logFormat, "log-format", "text", "text, pretty or json")
	f.StringVar(&s.logLevel, "log-level", "warn", "debug, info, warn, error or never")
	f.Var(&s.namespaces, "namespace", "namespace to create (repeatable)")
	f.Var(&s.dynamicConfig, "dynamic-config-value", "KEY=JSON value (repeatable)")
	f.Var(&s.searchAttrs, "search-attribute", "NAME=TYPE (repeatable)")
	f.Var(&s.pragmas, "sqlite-pragma", "NAME=VALUE (repeatable)")
	if err := f.Parse(args); err != nil {
		return nil, err
	}
	if f.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %v", f.Args())
	}
	if s.ip == "localhost" {
		s.ip = "127.0.0.1"
	}
	return s, nil
}

func keyValue(kv string) (string, string, error) {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || k == "" {
		return "", "", fmt.Errorf("%q is not KEY=VALUE", kv)
	}
	return k, v, nil
}

// A JSON number becomes an int where it is one: the server's int settings refuse a float64.
func dynamicConfig(values []string) (map[string]any, error) {
	out := map[string]any{}
	for k, v := range defaultDynamicConfig {
		out[k] = v
	}
	for _, kv := range values {
		k, raw, err := keyValue(kv)
		if err != nil {
			return nil, err
		}
		d := json.NewDecoder(strings.NewReader(raw))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			return nil, fmt.Errorf("dynamic config %s: value %q is not JSON: %w", k, raw, err)
		}
		if n, ok := v.(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				v = int(i)
			} else if f, err := n.Float64(); err == nil {
				v = f
			}
		}
		out[k] = v
	}
	return out, nil
}

func searchAttributes(values []string) (map[string]enums.IndexedValueType, error) {
	out := map[string]enums.IndexedValueType{}
	for _, kv := range values {
		name, typ, err := keyValue(kv)
		if err != nil {
			return nil, err
		}
		var found enums.IndexedValueType
		for shorthand, ord := range enums.IndexedValueType_shorthandValue {
			if strings.EqualFold(typ, shorthand) {
				found = enums.IndexedValueType(ord)
			}
		}
		if found == enums.INDEXED_VALUE_TYPE_UNSPECIFIED {
			return nil, fmt.Errorf("search attribute %s: unknown type %q", name, typ)
		}
		out[name] = found
	}
	return out, nil
}

func logger(format, level string) (*slog.Logger, slog.Level, error) {
	var lvl slog.Level
	if level == "never" {
		lvl = slog.LevelError + 100
	} else if err := lvl.UnmarshalText([]byte(level)); err != nil {
		return nil, 0, fmt.Errorf("log level %q: %w", level, err)
	}
	opts := &slog.HandlerOptions{Level: lvl}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts)), lvl, nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts)), lvl, nil
}

func options(s *startDev) (devserver.StartOptions, error) {
	log, level, err := logger(s.logFormat, s.logLevel)
	if err != nil {
		return devserver.StartOptions{}, err
	}
	namespaces := []string{"default"}
	for _, ns := range s.namespaces {
		if ns != "default" {
			namespaces = append(namespaces, ns)
		}
	}
	o := devserver.StartOptions{
		FrontendIP:             s.ip,
		FrontendPort:           s.port,
		FrontendHTTPPort:       s.httpPort,
		MetricsPort:            s.metricsPort,
		Namespaces:             namespaces,
		ClusterID:              uuid.NewString(),
		MasterClusterName:      "active",
		CurrentClusterName:     "active",
		InitialFailoverVersion: 1,
		Logger:                 log,
		LogLevel:               level,
		DatabaseFile:           s.dbFilename,
		SqlitePragmas:          map[string]string{},
		UIDisableNewsFetch:     true,
	}
	for _, kv := range s.pragmas {
		k, v, err := keyValue(kv)
		if err != nil {
			return o, fmt.Errorf("sqlite pragma: %w", err)
		}
		o.SqlitePragmas[k] = v
	}
	if o.DynamicConfigValues, err = dynamicConfig(s.dynamicConfig); err != nil {
		return o, err
	}
	if o.SearchAttributes, err = searchAttributes(s.searchAttrs); err != nil {
		return o, err
	}
	if err := devserver.CheckPortFree(o.FrontendIP, o.FrontendPort); err != nil {
		return o, fmt.Errorf("can't use frontend port %d: %w", o.FrontendPort, err)
	}
	if o.MetricsPort == 0 {
		o.MetricsPort = devserver.MustGetFreePort(o.FrontendIP)
	}
	if !s.headless {
		o.UIIP, o.UIPort = s.uiIP, s.uiPort
		if o.UIIP == "" {
			o.UIIP = s.ip
		}
		o.UICodecEndpoint, o.PublicPath, o.UIAssetPath = s.uiCodecEndpoint, s.uiPublicPath, s.uiAssetPath
		if o.UIPort == 0 {
			o.UIPort = min(s.port+1000, 65535)
		}
		if err := devserver.CheckPortFree(o.UIIP, o.UIPort); err != nil {
			return o, fmt.Errorf("can't use UI port %d: %w", o.UIPort, err)
		}
	}
	return o, nil
}

func run(args []string) error {
	if len(args) < 2 || args[0] != "server" || args[1] != "start-dev" {
		return errors.New("this build of the Temporal CLI runs only `server start-dev`; " +
			"use any `temporal` CLI for the other commands")
	}
	s, err := parse(args[2:])
	if err != nil {
		return err
	}
	o, err := options(s)
	if err != nil {
		return err
	}
	server, err := devserver.Start(o)
	if err != nil {
		return fmt.Errorf("failed starting server: %w", err)
	}
	defer server.Stop()
	if s.output != "none" {
		fmt.Printf("Temporal Server: %s:%d\n", s.ip, s.port)
		if !s.headless {
			fmt.Printf("Temporal UI:     http://%s:%d%s\n", devserver.MaybeEscapeIPv6(o.UIIP), o.UIPort, o.PublicPath)
		}
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	server.SuppressWarnings()
	return nil
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		fmt.Println(version)
		return
	}
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "temporal: %v\n", err)
		os.Exit(1)
	}
}
