package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agentry/agentry/client"
	"github.com/spf13/cobra"
)

func init() { addAPICommand(agentsCommand) }

// agentsCommand is `agentry agents …`: creating, reading, changing,
// exporting, importing and pausing agents, their workflow definition, and
// files uploaded as run input.
func agentsCommand(a *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "Create, change, export, import and pause agents",
		Long: `An agent is a workflow of steps (its definition) with a trigger and
settings. Create one blank or from a template, edit its definition, export it
to a file and import it into another account. See docs/agents.md.`,
	}
	def := &cobra.Command{Use: "definition", Short: "Show or replace an agent's workflow definition"}
	def.AddCommand(a.agentsDefinitionGet(), a.agentsDefinitionPut())
	cmd.AddCommand(a.agentsList(), a.agentsGet(), a.agentsCreate(), a.agentsUpdate(), a.agentsDelete(), def,
		a.agentsExport(), a.agentsImport(), a.agentsPreviewImport(), a.agentsPause("disable"), a.agentsPause("enable"),
		a.agentsCallers(), a.agentsAttachmentReferences(), a.agentsUploadInput(), a.agentsUploadStatus(),
		a.agentsSchedules(), a.agentsTemplates(), a.agentsVersions(), a.agentsRegress(), a.agentsRegressions())
	return cmd
}

// agentCmd builds a command taking the agent id (and maybe more) that
// prints what run returns, as JSON or through table.
func (a *App) agentCmd(use, short, example string, nargs int, run func(cmd *cobra.Command, c *client.Client, args []string) (any, func(io.Writer) error, error)) *cobra.Command {
	return &cobra.Command{
		Use: use, Short: short, Example: example, Args: exactArgs(nargs),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			v, table, err := run(cmd, c, args)
			if err != nil {
				return err
			}
			return a.print(cmd, v, table)
		},
	}
}

func (a *App) agentsList() *cobra.Command {
	var (
		o   client.AgentListOptions
		all bool
	)
	cmd := a.agentCmd("list", "List the account's agents, newest first",
		`  agentry agents list
  agentry agents list --page 2 --limit 50 -o table
  agentry agents list --all | jq -r '.[] | [.id, .name] | @tsv'`, 0,
		func(cmd *cobra.Command, c *client.Client, _ []string) (any, func(io.Writer) error, error) {
			items := []client.Agent{}
			if all {
				for ag, err := range c.Agents(cmd.Context(), o) {
					if err != nil {
						return nil, nil, err
					}
					items = append(items, ag)
				}
			} else {
				p, err := c.ListAgents(cmd.Context(), o)
				if err != nil {
					return nil, nil, err
				}
				items = p.Items
			}
			return items, func(w io.Writer) error { return agentsTable(w, items) }, nil
		})
	cmd.Long = "List agents: one page (--page, --limit), or every agent with --all. JSON output is an array."
	cmd.Flags().IntVar(&o.Page, "page", 1, "page number")
	cmd.Flags().IntVar(&o.Limit, "limit", 20, "agents per page (at most 100)")
	cmd.Flags().BoolVar(&all, "all", false, "list every agent, fetching page after page")
	return cmd
}

func (a *App) agentsGet() *cobra.Command {
	return a.agentCmd("get AGENT_ID", "Show an agent's settings", `  agentry agents get 0190… -o table`, 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, func(io.Writer) error, error) {
			ag, err := c.GetAgent(cmd.Context(), args[0])
			return ag, func(w io.Writer) error { return agentTable(w, ag) }, err
		})
}

func (a *App) agentsCreate() *cobra.Command {
	var req client.CreateAgentRequest
	var desc string
	cmd := a.agentCmd("create", "Create an agent, blank or from a template",
		`  agentry agents create --name "Support answers" --template simple_qa
  agentry agents create --name "Weekly report" --template scheduled_report --trigger schedule
  agentry agents create --name Inbox --trigger email_received`, 0,
		func(cmd *cobra.Command, c *client.Client, _ []string) (any, func(io.Writer) error, error) {
			if req.Name == "" {
				return nil, nil, usageErrorf("--name is required")
			}
			if cmd.Flags().Changed("description") {
				req.Description = &desc
			}
			ag, err := c.CreateAgent(cmd.Context(), req)
			return ag, func(w io.Writer) error { return agentTable(w, ag) }, err
		})
	cmd.Long = `Create an agent. Templates: blank, retrieval_example, simple_qa, summarizer,
json_extractor, content_change_notifier, scheduled_report, webhook_pipeline.
Triggers: dynamic_input (default), template_input, schedule, new_content,
email_received. To import an exported agent use "agentry agents import".`
	f := cmd.Flags()
	f.StringVar(&req.Name, "name", "", "the agent's name (required)")
	f.StringVar(&desc, "description", "", "a description")
	f.StringVar(&req.AgentTemplate, "template", "", "start from this template")
	f.StringVar(&req.TriggerType, "trigger", "", "trigger type (the template's default when omitted)")
	return cmd
}

func (a *App) agentsUpdate() *cobra.Command {
	var (
		name, desc, mode, tier, strategy, sampling, defFile string
		maxRetries                                          int
		retry, rollback                                     bool
		triggers, remap                                     []string
		clearTier, clearSampling, clearTriggers             bool
	)
	cmd := a.agentCmd("update AGENT_ID", "Change an agent's settings (or replace its workflow from an export)",
		`  agentry agents update 0190… --name "Support v2" --max-retries 5
  agentry agents update 0190… --clear-tier --rollback-triggers agent_eval_fail,governance_block
  agentry agents update 0190… --definition-file exported.json --remap OLD_KB_ID=NEW_KB_ID`, 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, func(io.Writer) error, error) {
			f := cmd.Flags()
			var req client.UpdateAgentRequest
			str := func(flag string, v string) *string {
				if f.Changed(flag) {
					return &v
				}
				return nil
			}
			req.Name, req.Description, req.EvaluationMode = str("name", name), str("description", desc), str("evaluation-mode", mode)
			req.DefaultEvaluationTier, req.PromptModelAutoUpgradeStrategy = str("tier", tier), str("upgrade-strategy", strategy)
			if f.Changed("max-retries") {
				req.MaxRetries = &maxRetries
			}
			if f.Changed("retry-on-failure") {
				req.RetryOnFailure = &retry
			}
			if f.Changed("rollback-enabled") {
				req.PromptModelAutoRollbackEnabled = &rollback
			}
			if f.Changed("rollback-triggers") {
				req.PromptModelAutoRollbackTriggers = append([]string{}, triggers...)
			}
			if sampling != "" {
				if err := json.Unmarshal([]byte(sampling), &req.SamplingConfig); err != nil || req.SamplingConfig == nil {
					return nil, nil, usageErrorf("--sampling-config must be a JSON object")
				}
			}
			req.SetDefaultEvaluationTier, req.SetSamplingConfig, req.SetPromptModelAutoRollbackTriggers = clearTier, clearSampling, clearTriggers
			if defFile != "" {
				payload, err := readPayload(cmd, defFile)
				if err != nil {
					return nil, nil, err
				}
				req.AgentDefinition = payload
			}
			m, err := parseRemap(remap)
			if err != nil {
				return nil, nil, err
			}
			req.EntityRemap = m
			ag, err := c.UpdateAgent(cmd.Context(), args[0], req)
			return ag, func(w io.Writer) error { return agentTable(w, ag) }, err
		})
	f := cmd.Flags()
	f.StringVar(&name, "name", "", "new name")
	f.StringVar(&desc, "description", "", "new description")
	f.StringVar(&mode, "evaluation-mode", "", "output_expectation, eval_and_retry or sample_and_flag")
	f.StringVar(&tier, "tier", "", "default evaluation tier: fast, balanced or thorough")
	f.BoolVar(&clearTier, "clear-tier", false, "clear the default evaluation tier (system default)")
	f.IntVar(&maxRetries, "max-retries", 3, "retries of eval_and_retry (1–10)")
	f.BoolVar(&retry, "retry-on-failure", true, "retry when an evaluation fails")
	f.StringVar(&sampling, "sampling-config", "", `sampling configuration, a JSON object such as '{"combinator":"and","rules":[]}'`)
	f.BoolVar(&clearSampling, "clear-sampling-config", false, "clear the sampling configuration")
	f.StringVar(&strategy, "upgrade-strategy", "", "model auto-upgrade: none, early_adopter, middle_of_road or cautious_adopter")
	f.BoolVar(&rollback, "rollback-enabled", false, "roll upgraded models back automatically")
	f.StringSliceVar(&triggers, "rollback-triggers", nil, "rollback signals: agent_eval_fail, governance_flag, governance_block, agent_run_failed")
	f.BoolVar(&clearTriggers, "clear-rollback-triggers", false, "revert the rollback signals to the system default")
	f.StringVar(&defFile, "definition-file", "", "replace the workflow (and unset settings) from an export file (- for stdin)")
	f.StringArrayVar(&remap, "remap", nil, "SOURCE_ID=TARGET_ID: substitute a referenced id before saving (repeatable)")
	return cmd
}

func (a *App) agentsDelete() *cobra.Command {
	return &cobra.Command{
		Use: "delete AGENT_ID", Short: "Delete an agent", Example: `  agentry agents delete 0190…`, Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			if err := c.DeleteAgent(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "deleted agent %s\n", args[0])
			return nil
		},
	}
}

func (a *App) agentsDefinitionGet() *cobra.Command {
	return a.agentCmd("get AGENT_ID", "Show the workflow, its change id and its warnings",
		`  agentry agents definition get 0190… > definition.json   # edit, then: definition put 0190… --file definition.json`, 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, func(io.Writer) error, error) {
			d, err := c.GetAgentDefinition(cmd.Context(), args[0])
			return d, func(w io.Writer) error { return definitionTable(w, d) }, err
		})
}

func (a *App) agentsDefinitionPut() *cobra.Command {
	var file, changeID string
	cmd := a.agentCmd("put AGENT_ID --file FILE", "Replace the workflow (optimistic locking on the change id)",
		`  agentry agents definition get 0190… > d.json && $EDITOR d.json && agentry agents definition put 0190… --file d.json
  agentry agents definition put 0190… --file workflow.json --change-id 0190…`, 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, func(io.Writer) error, error) {
			if file == "" {
				return nil, nil, usageErrorf("--file is required")
			}
			raw, err := readPayload(cmd, file)
			if err != nil {
				return nil, nil, err
			}
			// The output of `definition get` carries its change id: put
			// accepts it as it is, or a bare definition with --change-id.
			var wrapped struct {
				ChangeID   string          `json:"change_id"`
				Definition json.RawMessage `json:"definition"`
			}
			if json.Unmarshal(raw, &wrapped) == nil && len(wrapped.Definition) > 0 && wrapped.ChangeID != "" {
				raw = wrapped.Definition
				if changeID == "" {
					changeID = wrapped.ChangeID
				}
			}
			if changeID == "" {
				return nil, nil, usageErrorf("--change-id is required with a bare definition (see `agentry agents definition get`)")
			}
			d, err := c.UpdateAgentDefinition(cmd.Context(), args[0], changeID, raw)
			return d, func(w io.Writer) error { return definitionTable(w, d) }, err
		})
	cmd.Long = `Replace an agent's workflow. The file is either the output of "definition get"
(its change_id is used) or a bare definition with --change-id. If the workflow
changed since that change id was read, the command exits with status 6: get
it again and re-apply your change.`
	cmd.Flags().StringVar(&file, "file", "", "the definition (- for stdin)")
	cmd.Flags().StringVar(&changeID, "change-id", "", "the change id the new definition replaces")
	return cmd
}

func (a *App) agentsExport() *cobra.Command {
	var file string
	cmd := &cobra.Command{
		Use:   "export AGENT_ID",
		Short: "Save an agent's export (workflow, trigger, extras, dependencies) to a file",
		Example: `  agentry agents export 0190…                  # saved under the server's file name
  agentry agents export 0190… --file support.json
  agentry agents export 0190… --file - | jq .dependencies`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			if err := a.downloadTo(cmd, c, "/agents/"+url.PathEscape(args[0])+"/export", file); err != nil {
				return err
			}
			if file != "-" {
				fmt.Fprintln(cmd.ErrOrStderr(), "exported agent", args[0])
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&file, "file", "", "destination file, - for stdout (default: the name the server suggests)")
	return cmd
}

func (a *App) agentsImport() *cobra.Command {
	var (
		file, name, trigger, desc string
		remap                     []string
	)
	cmd := a.agentCmd("import --file FILE --name NAME", "Create an agent from an export",
		`  agentry agents preview-import --file support.json      # what this account lacks
  agentry agents import --file support.json --name "Support" --remap SOURCE_KB_ID=MY_KB_ID`, 0,
		func(cmd *cobra.Command, c *client.Client, _ []string) (any, func(io.Writer) error, error) {
			if file == "" || name == "" {
				return nil, nil, usageErrorf("--file and --name are required")
			}
			m, err := parseRemap(remap)
			if err != nil {
				return nil, nil, err
			}
			req := client.CreateAgentRequest{Name: name, TriggerType: trigger, EntityRemap: m}
			if cmd.Flags().Changed("description") {
				req.Description = &desc
			}
			r, closer, err := openInput(cmd, file)
			if err != nil {
				return nil, nil, err
			}
			defer closer()
			ag, err := c.ImportAgent(cmd.Context(), req, r)
			if err == nil {
				for _, w := range ag.ImportWarnings {
					fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s: %s\n", w.Category, w.Message)
				}
			}
			return ag, func(w io.Writer) error { return agentTable(w, ag) }, err
		})
	cmd.Long = `Create an agent from a file written by "agentry agents export". Its schedules,
alert configs, evaluation criteria, governance policies and solution links are
applied too; what this account cannot take is printed as a warning. An
invalid file exits with status 5 and shows each problem in its place.`
	f := cmd.Flags()
	f.StringVar(&file, "file", "", "the export (- for stdin)")
	f.StringVar(&name, "name", "", "the new agent's name")
	f.StringVar(&desc, "description", "", "a description (default: the export's)")
	f.StringVar(&trigger, "trigger", "", "trigger type (default: the export's)")
	f.StringArrayVar(&remap, "remap", nil, "SOURCE_ID=TARGET_ID: point a reference at this account's entity (repeatable)")
	return cmd
}

func (a *App) agentsPreviewImport() *cobra.Command {
	var file string
	cmd := a.agentCmd("preview-import --file FILE", "Check an export without saving, and list what this account lacks",
		`  agentry agents preview-import --file support.json -o table`, 0,
		func(cmd *cobra.Command, c *client.Client, _ []string) (any, func(io.Writer) error, error) {
			if file == "" {
				return nil, nil, usageErrorf("--file is required")
			}
			r, closer, err := openInput(cmd, file)
			if err != nil {
				return nil, nil, err
			}
			defer closer()
			p, err := c.PreviewImport(cmd.Context(), r)
			return p, func(w io.Writer) error { return previewTable(w, p) }, err
		})
	cmd.Flags().StringVar(&file, "file", "", "the export (- for stdin)")
	return cmd
}

func (a *App) agentsPause(verb string) *cobra.Command {
	short := "Pause an agent: no trigger starts it until it is enabled"
	if verb == "enable" {
		short = "Resume a paused agent"
	}
	cmd := a.agentCmd(verb+" AGENT_ID", short, "  agentry agents "+verb+" 0190…", 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, func(io.Writer) error, error) {
			var ag *client.Agent
			var err error
			if verb == "enable" {
				ag, err = c.EnableAgent(cmd.Context(), args[0])
			} else {
				ag, err = c.DisableAgent(cmd.Context(), args[0])
			}
			return ag, func(w io.Writer) error { return agentTable(w, ag) }, err
		})
	if verb == "disable" {
		cmd.Long = `Pause an agent. While live agents call it (see "agentry agents callers"), the
pause is refused with status 6: disable them first.`
	}
	return cmd
}

func (a *App) agentsCallers() *cobra.Command {
	return a.agentCmd("callers AGENT_ID", "List the live agents that call this one", `  agentry agents callers 0190… -o table`, 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, func(io.Writer) error, error) {
			list, err := c.AgentCallers(cmd.Context(), args[0])
			return list, func(w io.Writer) error {
				rows := make([][]string, len(list))
				for i, x := range list {
					rows[i] = []string{x.ID, x.Name, strconv.FormatBool(x.Disabled)}
				}
				return writeTable(w, []string{"ID", "Name", "Disabled"}, rows)
			}, err
		})
}

func (a *App) agentsAttachmentReferences() *cobra.Command {
	return a.agentCmd("attachment-references AGENT_ID", "Show what files a run of the agent needs",
		`  agentry agents attachment-references 0190…`, 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, func(io.Writer) error, error) {
			r, err := c.AgentAttachmentReferences(cmd.Context(), args[0])
			return r, func(w io.Writer) error {
				idx := "-"
				if r.Agent.IndexesMax != nil {
					idx = strconv.Itoa(*r.Agent.IndexesMax)
				}
				return writeFields(w, [][2]string{{"Requires uploads", strconv.FormatBool(r.RequiresUploads)},
					{"Kinds", orNone(strings.Join(r.Agent.Kinds, ", "))}, {"Exact names", orNone(strings.Join(r.Agent.ExactNames, ", "))},
					{"Patterns", orNone(strings.Join(r.Agent.Patterns, ", "))}, {"Highest index", idx}})
			}, err
		})
}

func (a *App) agentsUploadInput() *cobra.Command {
	var (
		file     string
		wait     bool
		interval time.Duration
		timeout  time.Duration
	)
	cmd := a.agentCmd("upload-input AGENT_ID --file FILE", "Upload a file as run input (at most 200 MiB)",
		`  agentry agents upload-input 0190… --file report.pdf --wait
  agentry agents upload-input 0190… --file notes.md | jq -r .id`, 1,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, func(io.Writer) error, error) {
			if file == "" {
				return nil, nil, usageErrorf("--file is required")
			}
			var u client.InputUpload
			if err := a.uploadFile(cmd, c, "/agents/"+url.PathEscape(args[0])+"/upload-input", file, client.Upload{Field: "file"}, &u); err != nil {
				return nil, nil, err
			}
			out := &u
			if wait {
				var err error
				if out, err = c.WaitInputUpload(cmd.Context(), args[0], u.ID, interval, timeout); err != nil {
					return nil, nil, err
				}
				if out.Status == client.UploadFailed {
					// Show what failed, then exit non-zero: a script that
					// waited must not go on with a file no run can read.
					if err := a.print(cmd, out, func(w io.Writer) error { return uploadTable(w, out) }); err != nil {
						return nil, nil, err
					}
					return nil, nil, fmt.Errorf("upload %s (%s) failed: %s", out.ID, out.Filename, orNone(runsStr(out.Error)))
				}
			}
			return out, func(w io.Writer) error { return uploadTable(w, out) }, nil
		})
	cmd.Long = `Upload a file for a run of the agent. Its text is extracted in the background
(plain text, Markdown, CSV, JSON, HTML, PDF, DOCX); images, audio and video are
kept as they are. With --wait, poll until it is ready or failed; a failed
extraction exits with status 1. Give the upload to a run with
runs start|stream --input-upload-id ID.`
	cmd.Flags().StringVar(&file, "file", "", "the file to upload")
	cmd.Flags().BoolVar(&wait, "wait", false, "wait until the upload is ready or failed")
	cmd.Flags().DurationVar(&interval, "interval", time.Second, "how often --wait polls")
	cmd.Flags().DurationVar(&timeout, "timeout", 5*time.Minute, "how long --wait waits (0: no limit)")
	return cmd
}

func (a *App) agentsUploadStatus() *cobra.Command {
	return a.agentCmd("upload-status AGENT_ID UPLOAD_ID", "Show an upload's processing status",
		`  agentry agents upload-status 0190… 0190… -o table`, 2,
		func(cmd *cobra.Command, c *client.Client, args []string) (any, func(io.Writer) error, error) {
			u, err := c.GetInputUpload(cmd.Context(), args[0], args[1])
			return u, func(w io.Writer) error { return uploadTable(w, u) }, err
		})
}

// openInput opens a file argument; "-" is stdin.
func openInput(cmd *cobra.Command, file string) (io.Reader, func(), error) {
	if file == "-" {
		return cmd.InOrStdin(), func() {}, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, usageErrorf("%v", err)
	}
	return f, func() { f.Close() }, nil
}

// readPayload reads a JSON file argument.
func readPayload(cmd *cobra.Command, file string) (json.RawMessage, error) {
	r, closer, err := openInput(cmd, file)
	if err != nil {
		return nil, err
	}
	defer closer()
	b, err := client.ReadImport(r)
	if err != nil {
		var pe *client.PayloadError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		return nil, usageErrorf("%s: %v", file, err)
	}
	return b, nil
}

// parseRemap reads SOURCE=TARGET pairs.
func parseRemap(pairs []string) (map[string]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	m := map[string]string{}
	for _, p := range pairs {
		from, to, ok := strings.Cut(p, "=")
		if !ok || from == "" || to == "" {
			return nil, usageErrorf("--remap %q: want SOURCE_ID=TARGET_ID", p)
		}
		m[from] = to
	}
	return m, nil
}

func agentsTable(w io.Writer, list []client.Agent) error {
	rows := make([][]string, len(list))
	for i, ag := range list {
		rows[i] = []string{ag.ID, ag.Name, orNone(sval(ag.TriggerType)), pausedText(ag), ag.UpdatedAt}
	}
	return writeTable(w, []string{"ID", "Name", "Trigger", "Paused", "Updated"}, rows)
}

func agentTable(w io.Writer, ag *client.Agent) error {
	tier := orNone(sval(ag.DefaultEvaluationTier))
	pairs := [][2]string{{"ID", ag.ID}, {"Name", ag.Name}, {"Description", orNone(sval(ag.Description))},
		{"Trigger", orNone(sval(ag.TriggerType))}, {"Paused", pausedText(*ag)},
		{"Evaluation", fmt.Sprintf("%s (tier %s, %d retries, retry on failure %t)", ag.EvaluationMode, tier, ag.MaxRetries, ag.RetryOnFailure)},
		{"Model upgrades", fmt.Sprintf("%s (rollback %t)", ag.PromptModelAutoUpgradeStrategy, ag.PromptModelAutoRollbackEnabled)},
		{"Created", ag.CreatedAt}, {"Updated", ag.UpdatedAt}}
	for _, tr := range ag.Triggers {
		pairs = append(pairs, [2]string{"Trigger ID", tr.ID})
		if len(tr.EmailAddresses) > 0 {
			pairs = append(pairs, [2]string{"Email addresses", strings.Join(tr.EmailAddresses, ", ")})
		}
	}
	if err := writeFields(w, pairs); err != nil {
		return err
	}
	for _, s := range ag.ImportWarnings {
		if _, err := fmt.Fprintf(w, "warning: %s: %s\n", s.Category, s.Message); err != nil {
			return err
		}
	}
	return nil
}

func pausedText(ag client.Agent) string {
	if !ag.Disabled {
		return "no"
	}
	return fmt.Sprintf("since %s (%s)", sval(ag.DisabledAt), sval(ag.DisabledReason))
}

func definitionTable(w io.Writer, d *client.AgentDefinition) error {
	if err := writeFields(w, [][2]string{{"Change ID", d.ChangeID}, {"Schema", d.SchemaVersion}}); err != nil {
		return err
	}
	for _, warn := range d.Warnings {
		fmt.Fprintf(w, "warning: %s: %s\n", orNone(warn["path"]), warn["message"])
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, d.Definition, "", "  "); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s\n", pretty.Bytes())
	return err
}

func previewTable(w io.Writer, p *client.ImportPreview) error {
	if err := writeFields(w, [][2]string{{"Agent", orNone(sval(p.AgentName))}, {"Steps", strconv.Itoa(p.StepCount)},
		{"Schedules", strconv.Itoa(p.Schedules)}, {"Alert configs", strconv.Itoa(p.AlertConfigs)},
		{"Evaluation criteria", strconv.Itoa(p.EvaluationCriteria)}, {"Governance policies", strconv.Itoa(p.GovernancePolicies)},
		{"Solutions", strconv.Itoa(p.Solutions)}, {"Export version", orNone(sval(p.PayloadExportVersion))}}); err != nil {
		return err
	}
	if len(p.UnresolvedRefs) == 0 {
		_, err := fmt.Fprintln(w, "Unresolved references: none")
		return err
	}
	fmt.Fprintln(w)
	rows := [][]string{}
	for _, u := range p.UnresolvedRefs {
		alt := "-"
		if len(u.Alternatives) > 0 {
			alt = fmt.Sprintf("%s (%s)", u.Alternatives[0].ID, u.Alternatives[0].Name)
		}
		rows = append(rows, []string{u.Category, u.RefID, orNone(sval(u.RefName)), strings.Join(u.Locations, ","), alt})
	}
	return writeTable(w, []string{"Kind", "ID", "Name", "Used at", "Best match"}, rows)
}

func uploadTable(w io.Writer, u *client.InputUpload) error {
	return writeFields(w, [][2]string{{"ID", u.ID}, {"Status", u.Status}, {"File", u.Filename}, {"Type", u.ContentType},
		{"Size", strconv.FormatInt(u.FileSize, 10)}, {"Error", orNone(sval(u.Error))}})
}

// sval shows an optional string.
func sval(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
