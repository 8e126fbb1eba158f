package definition

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// Each case is a small definition with one rule at stake: the problem it
// must produce (or, with sev "", that it produces no error at all).
func TestValidationRules(t *testing.T) {
	cases := []struct {
		name    string
		trigger TriggerType
		def     string
		sev     Severity
		code    Code
		path    string
	}{
		{"valid chain", TriggerDynamicInput, `{"child_steps":[{"id":"p","name":"P","step_type":"prompt_call","model":"m","prompt_template":"{{input}}","child_steps":[{"id":"s","name":"S","step_type":"streaming_result"}]}]}`, "", "", ""},
		{"unknown step type suggests", "", `{"child_steps":[{"id":"a","name":"A","step_type":"prompt_cal"}]}`, SeverityError, CodeUnknownStepType, "child_steps[0].step_type"},
		{"missing id", "", `{"child_steps":[{"name":"A","step_type":"text","text":"x"}]}`, SeverityError, CodeMissingField, "child_steps[0].id"},
		{"empty id", "", `{"child_steps":[{"id":" ","name":"A","step_type":"text","text":"x"}]}`, SeverityError, CodeMissingField, "child_steps[0].id"},
		{"id wrong type", "", `{"child_steps":[{"id":7,"name":"A","step_type":"text","text":"x"}]}`, SeverityError, CodeInvalidType, "child_steps[0].id"},
		{"missing step_type", "", `{"child_steps":[{"id":"a","name":"A"}]}`, SeverityError, CodeMissingField, "child_steps[0].step_type"},
		{"duplicate ids across subtrees", "", `{"child_steps":[{"id":"x","name":"I","step_type":"if_else","conditions":[{"operator":"is_empty"}],"then_steps":[{"id":"x","name":"T","step_type":"text","text":"t"}]}]}`, SeverityError, CodeDuplicateStepID, "child_steps[0].then_steps[0].id"},
		{"leaf with children", "", `{"child_steps":[{"id":"d","name":"D","step_type":"display_result","child_steps":[{"id":"t","name":"T","step_type":"text","text":"x"}]}]}`, SeverityError, CodeChildrenNotAllowed, "child_steps[0].child_steps"},
		{"join with children", "", `{"child_steps":[{"id":"j","name":"J","step_type":"join","child_steps":[{"id":"t","name":"T","step_type":"text","text":"x"}]}]}`, SeverityError, CodeChildrenNotAllowed, "child_steps[0].child_steps"},
		{"leaf with empty children is fine", "", `{"child_steps":[{"id":"d","name":"D","step_type":"display_result","child_steps":[]}]}`, "", "", ""},
		{"then_steps on prompt_call", "", `{"child_steps":[{"id":"p","name":"P","step_type":"prompt_call","model":"m","prompt_template":"x","then_steps":[]}]}`, SeverityError, CodeSubtreeNotAllowed, "child_steps[0].then_steps"},
		{"then_steps on switch", "", `{"child_steps":[{"id":"s","name":"S","step_type":"switch","cases":[{"match":"a","steps":[]}],"then_steps":[]}]}`, SeverityError, CodeSubtreeNotAllowed, "child_steps[0].then_steps"},
		{"streaming_result under text", TriggerDynamicInput, `{"child_steps":[{"id":"t","name":"T","step_type":"text","text":"x","child_steps":[{"id":"s","name":"S","step_type":"streaming_result"}]}]}`, SeverityError, CodeStreamingPlacement, "child_steps[0].child_steps[0]"},
		{"streaming_result at root", TriggerDynamicInput, `{"child_steps":[{"id":"s","name":"S","step_type":"streaming_result"}]}`, SeverityError, CodeStreamingPlacement, "child_steps[0]"},
		{"streaming_result on schedule", TriggerSchedule, `{"child_steps":[{"id":"p","name":"P","step_type":"prompt_call","model":"m","prompt_template":"x","child_steps":[{"id":"s","name":"S","step_type":"streaming_result"}]}]}`, SeverityError, CodeStreamingTrigger, "child_steps[0].child_steps[0]"},
		{"streaming_result on template_input", TriggerTemplateInput, `{"child_steps":[{"id":"p","name":"P","step_type":"prompt_call","model":"m","prompt_template":"x","child_steps":[{"id":"s","name":"S","step_type":"streaming_result"}]}]}`, "", "", ""},
		{"two streaming children", TriggerDynamicInput, `{"child_steps":[{"id":"p","name":"P","step_type":"prompt_call","model":"m","prompt_template":"x","child_steps":[{"id":"s","name":"S","step_type":"streaming_result"},{"id":"s2","name":"S","step_type":"streaming_result"}]}]}`, SeverityError, CodeStreamingPlacement, "child_steps[0].child_steps"},
		{"display_result in then_steps", "", `{"child_steps":[{"id":"i","name":"I","step_type":"if_else","conditions":[{"operator":"is_empty"}],"then_steps":[{"id":"d","name":"D","step_type":"display_result"}]}]}`, SeverityError, CodeNotAllowedInBranch, "child_steps[0].then_steps[0]"},
		{"display_result deep in else_steps", "", `{"child_steps":[{"id":"i","name":"I","step_type":"if_else","conditions":[{"operator":"is_empty"}],"then_steps":[{"id":"t","name":"T","step_type":"text","text":"x"}],"else_steps":[{"id":"t2","name":"T","step_type":"text","text":"x","child_steps":[{"id":"d","name":"D","step_type":"display_result"}]}]}]}`, SeverityError, CodeNotAllowedInBranch, "child_steps[0].else_steps[0].child_steps[0]"},
		{"streaming_result in switch case", TriggerDynamicInput, `{"child_steps":[{"id":"w","name":"W","step_type":"switch","cases":[{"match":"a","steps":[{"id":"p","name":"P","step_type":"prompt_call","model":"m","prompt_template":"x","child_steps":[{"id":"s","name":"S","step_type":"streaming_result"}]}]}]}]}`, SeverityError, CodeNotAllowedInBranch, "child_steps[0].cases[0].steps[0].child_steps[0]"},
		{"display_result after branch is fine", "", `{"child_steps":[{"id":"i","name":"I","step_type":"if_else","conditions":[{"operator":"is_empty"}],"then_steps":[{"id":"t","name":"T","step_type":"text","text":"x"}],"child_steps":[{"id":"d","name":"D","step_type":"display_result"}]}]}`, "", "", ""},
		{"display_result in for_each body warns", "", `{"child_steps":[{"id":"f","name":"F","step_type":"for_each","body":[{"id":"d","name":"D","step_type":"display_result"}]}]}`, SeverityWarning, CodeOutputInLoop, "child_steps[0].body[0]"},
		{"retry targets ancestor", "", `{"child_steps":[{"id":"p","name":"P","step_type":"prompt_call","model":"m","prompt_template":"x","child_steps":[{"id":"g","name":"G","step_type":"gate","conditions":[{"operator":"contains","value":"bad"}],"child_steps":[{"id":"r","name":"R","step_type":"retry","target_step_id":"p","max_retries":3}]}]}]}`, "", "", ""},
		{"retry targets sibling", "", `{"child_steps":[{"id":"a","name":"A","step_type":"text","text":"x"},{"id":"r","name":"R","step_type":"retry","target_step_id":"a","max_retries":2}]}`, SeverityError, CodeRetryTarget, "child_steps[1].target_step_id"},
		{"retry targets unknown", "", `{"child_steps":[{"id":"r","name":"R","step_type":"retry","target_step_id":"zz","max_retries":2}]}`, SeverityError, CodeRetryTarget, "child_steps[0].target_step_id"},
		{"retry targets itself", "", `{"child_steps":[{"id":"r","name":"R","step_type":"retry","target_step_id":"r","max_retries":2}]}`, SeverityError, CodeRetryTarget, "child_steps[0].target_step_id"},
		{"retry max_retries 0", "", `{"child_steps":[{"id":"a","name":"A","step_type":"text","text":"x","child_steps":[{"id":"r","name":"R","step_type":"retry","target_step_id":"a","max_retries":0}]}]}`, SeverityError, CodeOutOfRange, "child_steps[0].child_steps[0].max_retries"},
		{"retry max_retries 11", "", `{"child_steps":[{"id":"a","name":"A","step_type":"text","text":"x","child_steps":[{"id":"r","name":"R","step_type":"retry","target_step_id":"a","max_retries":11}]}]}`, SeverityError, CodeOutOfRange, "child_steps[0].child_steps[0].max_retries"},
		{"retry max_retries fractional", "", `{"child_steps":[{"id":"a","name":"A","step_type":"text","text":"x","child_steps":[{"id":"r","name":"R","step_type":"retry","target_step_id":"a","max_retries":2.5}]}]}`, SeverityError, CodeInvalidType, "child_steps[0].child_steps[0].max_retries"},
		{"retry max_retries 10.0 is an integer", "", `{"child_steps":[{"id":"a","name":"A","step_type":"text","text":"x","child_steps":[{"id":"g","name":"G","step_type":"gate","conditions":[{"operator":"is_empty"}],"child_steps":[{"id":"r","name":"R","step_type":"retry","target_step_id":"a","max_retries":10.0}]}]}]}`, "", "", ""},
		{"unconditional retry warns", "", `{"child_steps":[{"id":"a","name":"A","step_type":"text","text":"x","child_steps":[{"id":"r","name":"R","step_type":"retry","target_step_id":"a","max_retries":2}]}]}`, SeverityWarning, CodeUnconditionalRetry, "child_steps[0].child_steps[0]"},
		{"retry across branch is conditional", "", `{"child_steps":[{"id":"a","name":"A","step_type":"text","text":"x","child_steps":[{"id":"i","name":"I","step_type":"if_else","conditions":[{"operator":"is_empty"}],"then_steps":[{"id":"r","name":"R","step_type":"retry","target_step_id":"a","max_retries":2}]}]}]}`, "", "", ""},
		{"write_metadata on dynamic_input", TriggerDynamicInput, `{"child_steps":[{"id":"w","name":"W","step_type":"write_metadata","metadata_key":"k","content":"v"}]}`, SeverityError, CodeContentTrigger, "child_steps[0]"},
		{"write_metadata on new_content", TriggerNewContent, `{"child_steps":[{"id":"w","name":"W","step_type":"write_metadata","metadata_key":"k","content":"v"}]}`, "", "", ""},
		{"load_content_attachment on schedule", TriggerSchedule, `{"child_steps":[{"id":"l","name":"L","step_type":"load_content_attachment","attachment_key":"k"}]}`, SeverityError, CodeContentTrigger, "child_steps[0]"},
		{"write_content_attachment on email", TriggerEmailReceived, `{"child_steps":[{"id":"l","name":"L","step_type":"write_content_attachment","attachment_key":"k","content":"x"}]}`, SeverityError, CodeContentTrigger, "child_steps[0]"},
		{"load_content without version on dynamic", TriggerDynamicInput, `{"child_steps":[{"id":"l","name":"L","step_type":"load_content"}]}`, SeverityError, CodeContentTrigger, "child_steps[0]"},
		{"load_content with version on dynamic", TriggerDynamicInput, `{"child_steps":[{"id":"l","name":"L","step_type":"load_content","content_version_id":"{{input}}"}]}`, "", "", ""},
		{"content step with unknown trigger is not judged", "", `{"child_steps":[{"id":"w","name":"W","step_type":"write_metadata","metadata_key":"k","content":"v"}]}`, "", "", ""},
		{"required field missing", "", `{"child_steps":[{"id":"r","name":"R","step_type":"retrieval"}]}`, SeverityError, CodeMissingField, "child_steps[0].knowledge_base_id"},
		{"required field null", "", `{"child_steps":[{"id":"r","name":"R","step_type":"retrieval","knowledge_base_id":null}]}`, SeverityError, CodeMissingField, "child_steps[0].knowledge_base_id"},
		{"wrong field type", "", `{"child_steps":[{"id":"p","name":"P","step_type":"prompt_call","model":42,"prompt_template":"x"}]}`, SeverityError, CodeInvalidType, "child_steps[0].model"},
		{"enum value", "", `{"child_steps":[{"id":"e","name":"E","step_type":"extract_content","format":"yaml","path":"$"}]}`, SeverityError, CodeInvalidValue, "child_steps[0].format"},
		{"jsonpath must start with $", "", `{"child_steps":[{"id":"e","name":"E","step_type":"extract_content","format":"json","path":"items"}]}`, SeverityError, CodeInvalidValue, "child_steps[0].path"},
		{"temperature range", "", `{"child_steps":[{"id":"p","name":"P","step_type":"prompt_call","model":"m","prompt_template":"x","temperature":2.5}]}`, SeverityError, CodeOutOfRange, "child_steps[0].temperature"},
		{"prompt_call without template", "", `{"child_steps":[{"id":"p","name":"P","step_type":"prompt_call","model":"m"}]}`, SeverityError, CodeMissingField, "child_steps[0].prompt_template"},
		{"prompt_call json_template only", "", `{"child_steps":[{"id":"p","name":"P","step_type":"prompt_call","model":"m","simple_format":false,"json_template":{"messages":[]}}]}`, "", "", ""},
		{"prompt_call without model warns", "", `{"child_steps":[{"id":"p","name":"P","step_type":"prompt_call","prompt_template":"x"}]}`, SeverityWarning, CodeMissingModel, "child_steps[0]"},
		{"regex_replace without rules warns", "", `{"child_steps":[{"id":"r","name":"R","step_type":"regex_replace","rules":[]}]}`, SeverityWarning, CodePassThrough, "child_steps[0]"},
		{"regex that RE2 rejects", "", `{"child_steps":[{"id":"r","name":"R","step_type":"regex_replace","rules":[{"pattern":"(?<=a)b","replacement":"c"}]}]}`, SeverityError, CodeInvalidRegex, "child_steps[0].rules[0].pattern"},
		{"regex flags", "", `{"child_steps":[{"id":"r","name":"R","step_type":"regex_replace","rules":[{"pattern":"a","flags":"ix"}]}]}`, SeverityError, CodeInvalidValue, "child_steps[0].rules[0].flags"},
		{"gate numeric operator", "", `{"child_steps":[{"id":"g","name":"G","step_type":"gate","conditions":[{"json_path":"$.score","operator":"gte","value":"high"}]}]}`, SeverityError, CodeInvalidType, "child_steps[0].conditions[0].value"},
		{"gate unknown operator", "", `{"child_steps":[{"id":"g","name":"G","step_type":"gate","conditions":{"combinator":"and","rules":[{"operator":"bigger"}]}}]}`, SeverityError, CodeInvalidValue, "child_steps[0].conditions.rules[0].operator"},
		{"gate bad combinator", "", `{"child_steps":[{"id":"g","name":"G","step_type":"gate","conditions":{"combinator":"xor","rules":[{"operator":"is_empty"}]}}]}`, SeverityError, CodeInvalidValue, "child_steps[0].conditions.combinator"},
		{"gate empty conditions", "", `{"child_steps":[{"id":"g","name":"G","step_type":"gate","conditions":[]}]}`, SeverityError, CodeMissingField, "child_steps[0].conditions"},
		{"gate nested group ok", "", `{"child_steps":[{"id":"g","name":"G","step_type":"gate","conditions":{"combinator":"or","rules":[{"operator":"matches","value":"^a+$"},{"rules":[{"operator":"in","value":["x","y"]}]}]}}]}`, "", "", ""},
		{"if_else without then_steps", "", `{"child_steps":[{"id":"i","name":"I","step_type":"if_else","conditions":[{"operator":"is_empty"}]}]}`, SeverityError, CodeMissingField, "child_steps[0].then_steps"},
		{"switch without cases", "", `{"child_steps":[{"id":"s","name":"S","step_type":"switch"}]}`, SeverityError, CodeMissingField, "child_steps[0].cases"},
		{"switch case without match", "", `{"child_steps":[{"id":"s","name":"S","step_type":"switch","cases":[{"steps":[]}]}]}`, SeverityError, CodeMissingField, "child_steps[0].cases[0].match"},
		{"switch duplicate match warns", "", `{"child_steps":[{"id":"s","name":"S","step_type":"switch","cases":[{"match":"a","steps":[{"id":"t","name":"T","step_type":"text","text":"x"}]},{"match":["b","a"],"steps":[{"id":"u","name":"U","step_type":"text","text":"y"}]}]}]}`, SeverityWarning, CodeUnreachableCase, "child_steps[0].cases[1].match[1]"},
		{"switch 1 and \"1\" are the same text", "", `{"child_steps":[{"id":"s","name":"S","step_type":"switch","cases":[{"match":1,"steps":[{"id":"t","name":"T","step_type":"text","text":"x"}]},{"match":"1","steps":[{"id":"u","name":"U","step_type":"text","text":"y"}]}]}]}`, SeverityWarning, CodeUnreachableCase, "child_steps[0].cases[1].match"},
		{"for_each without body", "", `{"child_steps":[{"id":"f","name":"F","step_type":"for_each"}]}`, SeverityError, CodeMissingField, "child_steps[0].body"},
		{"for_each empty body", "", `{"child_steps":[{"id":"f","name":"F","step_type":"for_each","body":[]}]}`, SeverityError, CodeMissingField, "child_steps[0].body"},
		{"evaluate_step unknown target", "", `{"child_steps":[{"id":"e","name":"E","step_type":"evaluate_step","target_step_id":"nope","evaluation_prompt":"good?","pass_threshold":0.5}]}`, SeverityError, CodeUnknownStepRef, "child_steps[0].target_step_id"},
		{"evaluate_step non-ancestor warns", "", `{"child_steps":[{"id":"a","name":"A","step_type":"text","text":"x"},{"id":"e","name":"E","step_type":"evaluate_step","target_step_id":"a","evaluation_prompt":"good?","pass_threshold":0.5}]}`, SeverityWarning, CodeNotAncestor, "child_steps[1].target_step_id"},
		{"evaluate_step threshold range", "", `{"child_steps":[{"id":"a","name":"A","step_type":"text","text":"x","child_steps":[{"id":"e","name":"E","step_type":"evaluate_step","target_step_id":"a","evaluation_prompt":"good?","pass_threshold":1.5}]}]}`, SeverityError, CodeOutOfRange, "child_steps[0].child_steps[0].pass_threshold"},
		{"send_email bad address", "", `{"child_steps":[{"id":"m","name":"M","step_type":"send_email","to":["ops@acme.test","not an address"],"subject":"s"}]}`, SeverityError, CodeInvalidValue, "child_steps[0].to[1]"},
		{"send_email templated address", "", `{"child_steps":[{"id":"m","name":"M","step_type":"send_email","to":"{{metadata.email}}","subject":"s"}]}`, "", "", ""},
		{"webhook relative url", "", `{"child_steps":[{"id":"w","name":"W","step_type":"webhook_call","url":"/hook"}]}`, SeverityError, CodeInvalidValue, "child_steps[0].url"},
		{"webhook http warns", "", `{"child_steps":[{"id":"w","name":"W","step_type":"webhook_call","url":"http://hooks.acme.test/x"}]}`, SeverityWarning, CodeInsecureURL, "child_steps[0].url"},
		{"webhook secret header warns", "", `{"child_steps":[{"id":"w","name":"W","step_type":"webhook_call","url":"https://hooks.acme.test/x","headers":{"Authorization":"Bearer abc"}}]}`, SeverityWarning, CodeInlineSecret, "child_steps[0].headers.Authorization"},
		{"webhook method enum", "", `{"child_steps":[{"id":"w","name":"W","step_type":"webhook_call","url":"https://hooks.acme.test/x","method":"GET"}]}`, SeverityError, CodeInvalidValue, "child_steps[0].method"},
		{"s3 bucket name", "", `{"child_steps":[{"id":"s","name":"S","step_type":"write_aws_s3_object","bucket":"My_Bucket","key":"a"}]}`, SeverityError, CodeInvalidValue, "child_steps[0].bucket"},
		{"s3 endpoint", "", `{"child_steps":[{"id":"s","name":"S","step_type":"write_aws_s3_object","bucket":"reports","key":"a","endpoint_url":"minio:9000"}]}`, SeverityError, CodeInvalidValue, "child_steps[0].endpoint_url"},
		{"s3 compatible store ok", "", `{"child_steps":[{"id":"s","name":"S","step_type":"write_aws_s3_object","bucket":"reports","key":"r/{{agent.run_id}}.md","endpoint_url":"https://minio.acme.test","force_path_style":true,"access_key_id":"{{secrets.MINIO_KEY}}","secret_access_key":"{{ secrets.MINIO_SECRET }}"}]}`, "", "", ""},
		{"content_type media type", "", `{"child_steps":[{"id":"w","name":"W","step_type":"webhook_call","url":"https://h.acme.test","content_type":"json"}]}`, SeverityError, CodeInvalidValue, "child_steps[0].content_type"},
		{"call_agent itself", "", `{"child_steps":[{"id":"c","name":"C","step_type":"call_agent","agent_id":"` + agentID + `"}]}`, SeverityError, CodeSelfCall, "child_steps[0].agent_id"},
		{"human_in_the_loop", "", `{"child_steps":[{"id":"h","name":"H","step_type":"human_in_the_loop","instructions":"Approve?","assignee_user_ids":["` + userID + `"],"on_timeout":"approve"}]}`, "", "", ""},
		{"human_in_the_loop bad timeout", "", `{"child_steps":[{"id":"h","name":"H","step_type":"human_in_the_loop","instructions":"Approve?","on_timeout":"ignore"}]}`, SeverityError, CodeInvalidValue, "child_steps[0].on_timeout"},
		{"tools shape", "", `{"child_steps":[{"id":"p","name":"P","step_type":"prompt_call","model":"m","prompt_template":"x","tools":["web_search",{"type":"retrieval","knowledge_base_id":"` + kbID + `"},3]}]}`, SeverityError, CodeInvalidType, "child_steps[0].tools[2]"},
		{"unknown field warns", "", `{"child_steps":[{"id":"t","name":"T","step_type":"text","text":"x","colour":"red"}]}`, SeverityWarning, CodeUnknownField, "child_steps[0].colour"},
		{"missing name warns", "", `{"child_steps":[{"id":"t","step_type":"text","text":"x"}]}`, SeverityWarning, CodeMissingName, "child_steps[0]"},
		{"empty workflow warns", "", `{"child_steps":[]}`, SeverityWarning, CodeEmptyWorkflow, "child_steps"},
		{"template refers to unknown step", "", `{"child_steps":[{"id":"m","name":"M","step_type":"merge","template":"{{step.ghost.output}}"}]}`, SeverityWarning, CodeUnknownStepRef, "child_steps[0].template"},
		{"secret in a template warns", "", `{"child_steps":[{"id":"d","name":"D","step_type":"display_result","template":"{{ secrets.KEY }}"}]}`, SeverityWarning, CodeSecretPlacement, "child_steps[0].template"},
		{"bad attachment selector", "", `{"child_steps":[{"id":"p","name":"P","step_type":"prompt_call","model":"m","prompt_template":"{{attachments[-1]}}"}]}`, SeverityWarning, CodeInvalidSelector, "child_steps[0].prompt_template"},
		{"join alone warns", "", `{"child_steps":[{"id":"j","name":"J","step_type":"join"}]}`, SeverityWarning, CodeUselessJoin, "child_steps[0]"},
		{"join beside branches", "", `{"child_steps":[{"id":"a","name":"A","step_type":"text","text":"x"},{"id":"j","name":"J","step_type":"join"}]}`, "", "", ""},
		{"dynamic ref warns", "", `{"child_steps":[{"id":"r","name":"R","step_type":"retrieval","knowledge_base_id":"{{metadata.kb}}"}]}`, SeverityWarning, CodeDynamicRef, "child_steps[0].knowledge_base_id"},
		{"send_email body is text", "", `{"child_steps":[{"id":"m","name":"M","step_type":"send_email","to":"ops@acme.test","subject":"s","body":"{{input}}"}]}`, "", "", ""},
		{"body list on send_email", "", `{"child_steps":[{"id":"m","name":"M","step_type":"send_email","to":"ops@acme.test","subject":"s","body":[]}]}`, SeverityError, CodeSubtreeNotAllowed, "child_steps[0].body"},
		{"for_each body text", "", `{"child_steps":[{"id":"f","name":"F","step_type":"for_each","body":"x"}]}`, SeverityError, CodeInvalidType, "child_steps[0].body"},
		{"purpose must be text", "", `{"child_steps":[{"id":"t","name":"T","step_type":"text","text":"x","purpose":["why"]}]}`, SeverityError, CodeInvalidType, "child_steps[0].purpose"},
		{"step not an object", "", `{"child_steps":[42]}`, SeverityError, CodeInvalidType, "child_steps[0]"},
		{"child_steps not a list", "", `{"child_steps":{"id":"a"}}`, SeverityError, CodeInvalidType, "child_steps"},
		{"no child_steps", "", `{"name":"x"}`, SeverityError, CodeMissingField, "child_steps"},
		{"legacy steps key", "", `{"steps":[{"id":"t","name":"T","step_type":"text","text":"x"}]}`, SeverityWarning, CodeLegacyKey, "steps"},
		{"legacy steps paths", "", `{"steps":[{"id":"t","name":"T","step_type":"text"}]}`, SeverityError, CodeMissingField, "steps[0].text"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := check(t, c.def, ValidateOptions{Trigger: c.trigger, AgentID: agentID})
			if c.sev == "" {
				if got.HasErrors() {
					t.Fatalf("want no errors, got:%s", dump(got))
				}
				return
			}
			if !hasProblem(got, c.sev, c.code, c.path) {
				t.Fatalf("want %s %s at %q, got:%s", c.sev, c.code, c.path, dump(got))
			}
		})
	}
}

// TestS3Credentials: the step signs with the account's secrets, or with the
// server's credentials for a bucket the operator allows; never with keys
// written into the definition, never with the server's for other buckets.
func TestS3Credentials(t *testing.T) {
	step := func(extra string) string {
		return `{"child_steps":[{"id":"s","name":"S","step_type":"write_aws_s3_object","bucket":"reports","key":"a"` + extra + `}]}`
	}
	allow := ValidateOptions{ServerRules: ServerRules{S3AllowedBuckets: []string{"reports"}}}
	for _, c := range []struct {
		name, def string
		opts      ValidateOptions
		code      Code
		path      string
	}{
		{"no credentials, no allowlist", step(``), ValidateOptions{}, CodeServerCredentials, "child_steps[0].access_key_id"},
		{"another bucket allowed", step(``), ValidateOptions{ServerRules: ServerRules{S3AllowedBuckets: []string{"other"}}}, CodeServerCredentials, "child_steps[0].access_key_id"},
		{"allowed bucket", step(``), allow, "", ""},
		{"allowed bucket elsewhere", step(`,"endpoint_url":"https://attacker.test"`), allow, CodeServerCredentials, "child_steps[0].endpoint_url"},
		{"secrets", step(`,"access_key_id":"{{secrets.K}}","secret_access_key":"{{secrets.S}}"`), ValidateOptions{}, "", ""},
		{"secrets at any endpoint", step(`,"endpoint_url":"https://minio.acme.test","access_key_id":"{{secrets.K}}","secret_access_key":"{{secrets.S}}"`), ValidateOptions{}, "", ""},
		{"literal secret key", step(`,"access_key_id":"{{secrets.K}}","secret_access_key":"wJalrXUtnFEMI"`), allow, CodeLiteralCredential, "child_steps[0].secret_access_key"},
		{"literal key id", step(`,"access_key_id":"AKIAEXAMPLE","secret_access_key":"{{secrets.S}}"`), ValidateOptions{}, CodeLiteralCredential, "child_steps[0].access_key_id"},
		{"other placeholder", step(`,"access_key_id":"{{metadata.k}}","secret_access_key":"{{secrets.S}}"`), ValidateOptions{}, CodeLiteralCredential, "child_steps[0].access_key_id"},
		{"bad secret name", step(`,"access_key_id":"{{secrets.9x}}","secret_access_key":"{{secrets.S}}"`), ValidateOptions{}, CodeLiteralCredential, "child_steps[0].access_key_id"},
		{"key id alone", step(`,"access_key_id":"{{secrets.K}}"`), allow, CodeMissingField, "child_steps[0].secret_access_key"},
		{"secret alone", step(`,"secret_access_key":"{{secrets.S}}"`), allow, CodeMissingField, "child_steps[0].access_key_id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := check(t, c.def, c.opts)
			if c.code == "" {
				if got.HasErrors() {
					t.Fatalf("want no errors, got:%s", dump(got))
				}
				return
			}
			if !hasProblem(got, SeverityError, c.code, c.path) {
				t.Fatalf("want %s at %q, got:%s", c.code, c.path, dump(got))
			}
		})
	}
}

func TestSecretRef(t *testing.T) {
	for in, want := range map[string]string{
		"{{secrets.AWS_KEY}}": "AWS_KEY", "{{ secrets._k1 }}": "_k1", " {{secrets.x}} ": "x",
		"{{secrets.}}": "", "{{secrets.1a}}": "", "{{secrets.a-b}}": "", "{{secrets.a}}x": "", "x{{secrets.a}}": "",
		"{{secrets.a}}{{secrets.b}}": "", "{{input}}": "", "secrets.a": "", "{{secret.a}}": "",
		"{{secrets." + strings.Repeat("a", 65) + "}}": "",
	} {
		got, ok := SecretRef(in)
		if got != want || ok != (want != "") {
			t.Errorf("SecretRef(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

func TestUnknownStepTypeSuggestion(t *testing.T) {
	got := check(t, `{"child_steps":[{"id":"a","name":"A","step_type":"webhook"}]}`, ValidateOptions{})
	for _, p := range got {
		if p.Code == CodeUnknownStepType {
			if !strings.Contains(p.Message, "did you mean webhook_call?") {
				t.Errorf("message %q lacks suggestion", p.Message)
			}
			return
		}
	}
	t.Fatalf("no unknown_step_type:%s", dump(got))
}

func TestValidateResolvesReferences(t *testing.T) {
	js := `{"child_steps":[
		{"id":"r","name":"R","step_type":"retrieval","knowledge_base_id":"` + kbID + `","source_connection_ids":["` + srcID + `"],
		 "child_steps":[{"id":"m","name":"M","step_type":"add_memory","memory_bank_id":"` + bankID + `"},
		                {"id":"r2","name":"R2","step_type":"retrieval","knowledge_base_id":"` + kbID + `"}]}]}`
	d := mustParse(t, js)
	calls := 0
	res := ResolverFunc(func(_ context.Context, kind RefKind, id string) (bool, error) {
		calls++
		return id != bankID, nil
	})
	rep, err := Validate(context.Background(), d, ValidateOptions{Resolver: res, BasePath: "agent.definition"})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 3 {
		t.Errorf("resolver asked %d times, want 3 (one per distinct entity)", calls)
	}
	if !hasProblem(rep.Problems, SeverityError, CodeUnresolvedRef, "agent.definition.child_steps[0].child_steps[0].memory_bank_id") {
		t.Fatalf("missing bank not reported:%s", dump(rep.Problems))
	}
	if len(rep.Unresolved) != 1 || rep.Unresolved[0].ID != bankID || rep.Unresolved[0].StepID != "m" {
		t.Errorf("unresolved = %+v", rep.Unresolved)
	}
	rep, _ = Validate(context.Background(), d, ValidateOptions{Resolver: res, CollectUnresolved: true})
	if !rep.OK() || len(rep.Unresolved) != 1 {
		t.Errorf("collect mode: ok=%v unresolved=%v", rep.OK(), rep.Unresolved)
	}
	boom := errors.New("db down")
	_, err = Validate(context.Background(), d, ValidateOptions{Resolver: ResolverFunc(func(context.Context, RefKind, string) (bool, error) { return false, boom })})
	if !errors.Is(err, boom) {
		t.Errorf("resolver failure must surface, got %v", err)
	}
}

func TestValidateNilDefinition(t *testing.T) {
	rep, err := Validate(context.Background(), nil, ValidateOptions{})
	if err != nil || rep.OK() {
		t.Fatalf("nil definition must be an error problem: %v %v", rep, err)
	}
}
