// Command rag-immune-dashboards generates the RAG Immune Grafana dashboards with the Grafana
// foundation SDK and validates dashboard JSON strictly with the same SDK.
//
//	rag-immune-dashboards generate <dir>...   write every dashboard as <dir>/<uid>.json
//	rag-immune-dashboards validate <file>...  UnmarshalJSONStrict + Validate, plus our own rules
//	rag-immune-dashboards check <dir>         the committed files equal what generate writes
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: rag-immune-dashboards generate <dir>... | validate <file>... | check <dir>")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "generate":
		err = generate(os.Args[2:])
	case "validate":
		err = validate(os.Args[2:])
	case "check":
		err = check(os.Args[2])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rag-immune-dashboards:", err)
		os.Exit(1)
	}
}

// rendered returns every dashboard's file name and its JSON as committed (2-space indent, trailing newline).
func rendered() (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, build := range dashboards() {
		d, err := build.Build()
		if err != nil {
			return nil, err
		}
		raw, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			return nil, err
		}
		out[*d.Uid+".json"] = append(raw, '\n')
	}
	return out, nil
}

func generate(dirs []string) error {
	files, err := rendered()
	if err != nil {
		return err
	}
	for _, dir := range dirs {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for name, raw := range files {
			if err := os.WriteFile(filepath.Join(dir, name), raw, 0o644); err != nil {
				return err
			}
			fmt.Printf("wrote %s\n", filepath.Join(dir, name))
		}
	}
	return nil
}

// check fails when a committed dashboard differs from the generated one (someone edited JSON by hand
// or changed the generator without regenerating), or when the directory holds a stray dashboard.
func check(dir string) error {
	files, err := rendered()
	if err != nil {
		return err
	}
	var problems []string
	for name, raw := range files {
		committed, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: missing (run: npm run dashboards)", name))
		} else if !bytes.Equal(committed, raw) {
			problems = append(problems, fmt.Sprintf("%s: differs from the generator's output (run: npm run dashboards)", name))
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") && files[e.Name()] == nil {
			problems = append(problems, fmt.Sprintf("%s: not produced by the generator", e.Name()))
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return errors.New(strings.Join(problems, "; "))
	}
	fmt.Printf("check: %d dashboards in %s match the generator\n", len(files), dir)
	return nil
}

// buildErrorCount is the number of problems in an error from the SDK: its strict unmarshal and
// Validate return a cog.BuildErrors list that is non-nil but empty on success.
func buildErrorCount(err error) int {
	if err == nil {
		return 0
	}
	var list cog.BuildErrors
	if errors.As(err, &list) {
		return len(list)
	}
	return 1
}

func validate(files []string) error {
	plugins.RegisterDefaultPlugins()
	failed := 0
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		strict := &dashboard.Dashboard{}
		// The SDK's strict unmarshal keeps a panel only when its own strict unmarshal returned a nil
		// error, but success is an empty non-nil list, so valid panels come back as nil entries. The
		// panels are therefore validated again from a plain unmarshal, which keeps them.
		plain := &dashboard.Dashboard{}
		problems := []string{}
		if err := strict.UnmarshalJSONStrict(raw); buildErrorCount(err) > 0 {
			problems = append(problems, "strict unmarshal: "+err.Error())
		} else if err := strict.Validate(); buildErrorCount(err) > 0 {
			problems = append(problems, "validate: "+err.Error())
		} else if err := json.Unmarshal(raw, plain); err != nil {
			problems = append(problems, "unmarshal: "+err.Error())
		} else if err := plain.Validate(); buildErrorCount(err) > 0 {
			problems = append(problems, "validate: "+err.Error())
		} else if len(plain.Panels) != len(strict.Panels) {
			problems = append(problems, fmt.Sprintf("%d panels read, %d expected", len(plain.Panels), len(strict.Panels)))
		} else {
			problems = append(problems, ownRules(plain)...)
		}
		if len(problems) > 0 {
			failed++
			for _, p := range problems {
				fmt.Fprintf(os.Stderr, "%s: %s\n", file, p)
			}
			continue
		}
		fmt.Printf("%s: valid (%d panels)\n", file, len(plain.Panels))
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d dashboards invalid", failed, len(files))
	}
	return nil
}

// ownRules are what the SDK cannot know: each dashboard has a uid and title, panels do not overlap
// in ids, and every panel queries the dashboard's Prometheus datasource variable with a PromQL expr.
func ownRules(d *dashboard.Dashboard) []string {
	var problems []string
	if d.Uid == nil || *d.Uid == "" || d.Title == nil || *d.Title == "" {
		problems = append(problems, "dashboard needs a uid and a title")
	}
	ids := map[uint32]bool{}
	for _, p := range d.Panels {
		if p.RowPanel != nil {
			continue
		}
		panel := p.Panel
		if panel == nil {
			problems = append(problems, "a panel that is neither a panel nor a row")
			continue
		}
		title := ""
		if panel.Title != nil {
			title = *panel.Title
		}
		if panel.Id == nil || ids[*panel.Id] {
			problems = append(problems, fmt.Sprintf("panel %q: missing or duplicate id", title))
		} else {
			ids[*panel.Id] = true
		}
		if len(panel.Targets) == 0 {
			problems = append(problems, fmt.Sprintf("panel %q: no query", title))
		}
		for _, t := range panel.Targets {
			raw, _ := json.Marshal(t)
			var q struct {
				Expr       string `json:"expr"`
				Datasource struct {
					Type string `json:"type"`
					Uid  string `json:"uid"`
				} `json:"datasource"`
			}
			_ = json.Unmarshal(raw, &q)
			if strings.TrimSpace(q.Expr) == "" {
				problems = append(problems, fmt.Sprintf("panel %q: a query without expr", title))
			}
			if q.Datasource.Type != "prometheus" || q.Datasource.Uid != "${datasource}" {
				problems = append(problems, fmt.Sprintf("panel %q: query datasource must be the ${datasource} Prometheus variable", title))
			}
		}
	}
	return problems
}
