package definition

import (
	"slices"
	"strings"

	"github.com/google/uuid"
)

// Step types that reach outside the agent: mail, HTTP, object storage and
// other agents.
func integrationSpecs() []*StepSpec {
	return []*StepSpec{
		{
			Type:    StepSendEmail,
			Group:   "Integrations",
			Summary: "Send an e-mail with step output.",
			Doc:     "Sends `body` (default the input) with `subject` to the recipients. Recipient fields take one address or a list; literal addresses are checked, templated ones at run time. Recipients who opted out of agent e-mail are skipped. The input passes through unchanged.",
			Fields: []Field{
				{Name: "to", Kind: KindStringOrList, Required: true, Doc: "Recipient address(es).", check: checkAddresses},
				{Name: "cc", Kind: KindStringOrList, Doc: "Copy recipients.", check: checkAddresses},
				{Name: "bcc", Kind: KindStringOrList, Doc: "Blind-copy recipients.", check: checkAddresses},
				{Name: "reply_to", Kind: KindString, Doc: "Reply-To address.", check: checkAddresses},
				{Name: "subject", Kind: KindTemplate, Required: true, Doc: "Subject line."},
				{Name: "body", Kind: KindTemplate, Default: "{{input}}", Doc: "Message body."},
				{Name: "html", Kind: KindBoolean, Default: false, Doc: "Send the body as HTML."},
			},
		},
		{
			Type:    StepWebhookCall,
			Group:   "Integrations",
			Summary: "POST data to an external URL.",
			Doc:     "Sends `body` (default the input) to `url`. The output is the response body when `include_response` is true, else the input. Requests to private or loopback addresses are refused unless the server allows them; plain http URLs and credentials written into headers are reported as warnings (a definition is exported in clear).",
			Fields: []Field{
				{Name: "url", Kind: KindTemplate, Required: true, Doc: "Absolute http(s) URL; may contain placeholders.", check: checkWebhookURL},
				{Name: "method", Kind: KindString, Enum: []string{"POST", "PUT", "PATCH"}, Default: "POST", Doc: "HTTP method."},
				{Name: "headers", Kind: KindObject, Doc: "Extra request headers; values are templates.", check: checkHeaders},
				{Name: "body", Kind: KindTemplate, Default: "{{input}}", Doc: "Request body."},
				{Name: "content_type", Kind: KindString, Default: "application/json", Doc: "Content-Type of the body.", check: checkMediaType},
				bounded(Field{Name: "timeout_seconds", Kind: KindInteger, Default: 30, Doc: "Request timeout."}, 1, 300),
				{Name: "include_response", Kind: KindBoolean, Default: true, Doc: "Use the response body as the step output."},
			},
		},
		{
			Type:    StepWriteS3Object,
			Group:   "Integrations",
			Summary: "Write output to an object in an S3-compatible store.",
			Doc:     "Writes `content` (default the input) to `bucket`/`key` on AWS S3 or any S3-compatible store (MinIO, R2, Ceph…) given by `endpoint_url`. The name is kept for compatibility with exported definitions. Credentials are account secrets named in `access_key_id` and `secret_access_key` as `{{secrets.NAME}}`; keys written into the definition are refused (it is exported in clear). Without them the step may only write to a bucket the operator allows (`SERVICE_S3_ALLOWED_BUCKETS`), with the server's own credentials and no `endpoint_url`; any other bucket is refused. The output is the object URL.",
			Fields: []Field{
				{Name: "bucket", Kind: KindString, Required: true, Doc: "Bucket name.", check: checkBucket},
				{Name: "key", Kind: KindTemplate, Required: true, Doc: "Object key, e.g. `reports/{{agent.run_id}}.md`. A key with a `.` or `..` segment is refused when the step runs."},
				{Name: "content", Kind: KindTemplate, Default: "{{input}}", Doc: "Object body."},
				{Name: "content_type", Kind: KindString, Default: "text/plain", Doc: "Content-Type stored with the object.", check: checkMediaType},
				{Name: "region", Kind: KindString, Doc: "Bucket region."},
				{Name: "endpoint_url", Kind: KindString, Doc: "Endpoint of an S3-compatible store; AWS when absent.", check: checkEndpointURL},
				{Name: "force_path_style", Kind: KindBoolean, Default: false, Doc: "Address the bucket in the path (most self-hosted stores need this)."},
				{Name: "access_key_id", Kind: KindString, Doc: "Access key id: a reference to an account secret, `{{secrets.NAME}}`."},
				{Name: "secret_access_key", Kind: KindString, Doc: "Secret access key: a reference to an account secret, `{{secrets.NAME}}`."},
			},
			rules: s3Rules,
		},
		{
			Type:    StepCallAgent,
			Group:   "Integrations",
			Summary: "Invoke another agent of the account.",
			Doc:     "Runs the agent `agent_id` with `input` and outputs its result. `agent_id` is an agent id (a UUID, checked at save: it must exist and not be paused) or a template such as `{{metadata.agent}}`, rendered at run time. A paused or absent callee fails the step (for a paused one with the reason a run request gets). The callee cannot be paused while live callers naming it literally exist (`GET /agents/{id}/callers`). An agent may not call itself.",
			Fields: []Field{
				{Name: "agent_id", Kind: KindRef, Ref: RefAgent, Required: true, Doc: "Agent to run: its id, or a template rendering to one."},
				{Name: "input", Kind: KindTemplate, Default: "{{input}}", Doc: "Input passed to the callee."},
				{Name: "wait_for_completion", Kind: KindBoolean, Default: true, Doc: "Wait for the result (true) or start the run and pass the input on (false)."},
				bounded(Field{Name: "timeout_seconds", Kind: KindInteger, Default: 600, Doc: "How long to wait for the callee."}, 1, 3600),
			},
			rules: callAgentRules,
		},
	}
}

func callAgentRules(c *checker, v Visit) {
	id, ok := v.Step.String("agent_id")
	if !ok || strings.TrimSpace(id) == "" {
		return // reported as a missing field
	}
	path := fieldPath(v.Path, "agent_id")
	if hasPlaceholder(id) {
		return // rendered at run time (a dynamic_ref warning says so)
	}
	// Agent ids are UUIDs: anything else can never name an agent, and a
	// template missing its braces would otherwise be taken for an id.
	if _, err := uuid.Parse(id); err != nil {
		c.errorf(CodeInvalidValue, path, "agent_id %q is neither an agent id (a UUID) nor a {{…}} template", id)
		return
	}
	if c.opts.AgentID != "" && id == c.opts.AgentID {
		c.errorf(CodeSelfCall, path, "an agent cannot call itself")
	}
}

// s3Rules keeps the step from signing with anything but the account's own
// credentials: keys are references to account secrets, never literals (the
// definition is exported in clear), and without them only a bucket the
// operator allows may be written, with the server's credentials, at the
// server's endpoint.
func s3Rules(c *checker, v Visit) {
	var refs int
	for _, f := range []string{"access_key_id", "secret_access_key"} {
		s, ok := v.Step.String(f)
		if !ok || s == "" {
			continue
		}
		if _, ok := SecretRef(s); !ok {
			c.errorf(CodeLiteralCredential, fieldPath(v.Path, f), "%s must name an account secret, as {{secrets.NAME}} "+
				"(store it with PUT /secrets/{name} or `agentry secrets set NAME`): a key written into the definition is exported in clear", f)
		}
		refs++
	}
	ak, _ := v.Step.String("access_key_id")
	sk, _ := v.Step.String("secret_access_key")
	switch {
	case ak != "" && sk != "":
		return
	case ak != "":
		c.errorf(CodeMissingField, fieldPath(v.Path, "secret_access_key"), "access_key_id needs secret_access_key beside it")
		return
	case sk != "":
		c.errorf(CodeMissingField, fieldPath(v.Path, "access_key_id"), "secret_access_key needs access_key_id beside it")
		return
	}
	bucket, _ := v.Step.String("bucket")
	if !slices.Contains(c.opts.S3AllowedBuckets, bucket) {
		c.errorf(CodeServerCredentials, fieldPath(v.Path, "access_key_id"), "write_aws_s3_object needs credentials of the account: "+
			"set access_key_id and secret_access_key to account secrets ({{secrets.NAME}}); the server's own credentials only "+
			"write to the buckets its operator allows (SERVICE_S3_ALLOWED_BUCKETS), and %q is not one of them", bucket)
		return
	}
	if e, ok := v.Step.String("endpoint_url"); ok && e != "" {
		c.errorf(CodeServerCredentials, fieldPath(v.Path, "endpoint_url"), "endpoint_url cannot be used with the server's own credentials; "+
			"to write to another store, set access_key_id and secret_access_key to account secrets")
	}
}
