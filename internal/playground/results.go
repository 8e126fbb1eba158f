package playground

// Statuses of one model's call within an experiment.
const (
	CallPending   = "pending"
	CallCompleted = "completed"
	CallFailed    = "failed"
	CallCanceled  = "canceled"
	CallSkipped   = "skipped" // an evaluation of an output that does not exist
	// CallUnavailable: the evaluator has no basis to judge this output
	// (the offline model without a reference answer or facts in the
	// prompt); error says why. It is final: a retry would not change it.
	CallUnavailable = "unavailable"
)

// Results is an experiment's result_data.
type Results struct {
	Models     []ModelResult      `json:"models"`
	Evaluation *EvaluationSummary `json:"evaluation,omitempty"`
	Totals     Totals             `json:"totals"`
}

// ModelResult is one model's answer to the experiment's prompt.
type ModelResult struct {
	ModelID      string      `json:"model_id"`
	ModelName    string      `json:"model_name"`
	Provider     string      `json:"provider"`
	Status       string      `json:"status"`
	Output       *string     `json:"output"`
	Error        string      `json:"error,omitempty"`
	FinishReason string      `json:"finish_reason,omitempty"`
	LatencyMS    int64       `json:"latency_ms"`
	InputTokens  int         `json:"input_tokens"`
	OutputTokens int         `json:"output_tokens"`
	TotalTokens  int         `json:"total_tokens"`
	Credits      int64       `json:"credits"`
	Evaluation   *Evaluation `json:"evaluation,omitempty"`
}

// Evaluation is the evaluator's judgement of one output.
type Evaluation struct {
	Status           string             `json:"status"`
	Score            *float64           `json:"score"`
	Reasoning        string             `json:"reasoning,omitempty"`
	Criteria         map[string]float64 `json:"criteria,omitempty"`
	Strengths        string             `json:"strengths,omitempty"`
	Weaknesses       string             `json:"weaknesses,omitempty"`
	EvaluatorModelID string             `json:"evaluator_model_id"`
	Error            string             `json:"error,omitempty"`
	LatencyMS        int64              `json:"latency_ms"`
	InputTokens      int                `json:"input_tokens"`
	OutputTokens     int                `json:"output_tokens"`
	Credits          int64              `json:"credits"`
}

// EvaluationSummary ranks the models by score (prompt evaluation only).
// BestModelID is null unless one model scored strictly higher than every
// other and every answer was judged.
type EvaluationSummary struct {
	Mode             string   `json:"mode"`
	Complexity       string   `json:"complexity"`
	EvaluatorModelID string   `json:"evaluator_model_id"`
	BestModelID      *string  `json:"best_model_id"`
	Ranking          []string `json:"ranking"`
}

// Totals sums the experiment's metered calls as billed.
type Totals struct {
	Calls        int     `json:"calls"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	Credits      float64 `json:"credits"`
}
