package definition

// FieldKind is the JSON type (and meaning) of a configuration field.
type FieldKind string

// Field kinds. Template fields are strings rendered at run time with
// {{…}} placeholders ({{input}}, {{step.<id>.output}}, {{attachments[0]}}…).
const (
	KindString       FieldKind = "string"
	KindTemplate     FieldKind = "template"
	KindInteger      FieldKind = "integer"
	KindNumber       FieldKind = "number"
	KindBoolean      FieldKind = "boolean"
	KindObject       FieldKind = "object"         // free-form object, not inspected
	KindAny          FieldKind = "any"            // any JSON value
	KindStringList   FieldKind = "string_list"    // array of strings
	KindStringOrList FieldKind = "string_or_list" // a string or an array of strings
	KindStepID       FieldKind = "step_id"        // id of another step of this definition
	KindRef          FieldKind = "ref"            // id of an account entity (see Field.Ref)
	KindRefList      FieldKind = "ref_list"       // array of entity ids
	KindConditions   FieldKind = "conditions"     // condition rules, see conditions.go
	KindRegexRules   FieldKind = "regex_rules"    // ordered find/replace rules
	KindTools        FieldKind = "tools"          // tool names or tool objects
	KindSteps        FieldKind = "steps"          // a nested step list (sub-tree)
	KindCases        FieldKind = "cases"          // switch cases
)

// Field describes one configuration key of a step type.
type Field struct {
	Name     string
	Kind     FieldKind
	Required bool
	Enum     []string
	Min, Max *float64 // inclusive bounds for numbers and integers
	Default  any      // documented default when absent (applied by the engine)
	Ref      RefKind  // for KindRef/KindRefList
	Doc      string
	// check adds value rules beyond kind, enum and range (URLs, addresses…).
	check func(c *checker, v any, path string)
}

// StepSpec describes a step type: its fields and its structural rules.
type StepSpec struct {
	Type        StepType
	Group       string // documentation grouping
	Summary     string
	Doc         string
	Leaf        bool     // may not have child_steps
	ContentOnly bool     // requires a new_content trigger
	Subtrees    []string // sub-tree keys besides child_steps (then_steps, cases, body…)
	Fields      []Field
	// rules adds structural and cross-field rules of the type.
	rules func(c *checker, v Visit)
}

// Spec returns the specification of a step type.
func Spec(t StepType) (StepSpec, bool) {
	s, ok := specs[t]
	if !ok {
		return StepSpec{}, false
	}
	return *s, true
}

// CommonFields are accepted on every step.
var CommonFields = []Field{
	{Name: "id", Kind: KindString, Required: true, Doc: "Unique within the definition (1–255 characters). Referenced by `{{step.<id>.output}}`, retry and evaluate_step targets and evaluation criteria; letters, digits, `-` and `_` keep it usable in templates."},
	{Name: "name", Kind: KindString, Doc: "Human-readable label shown in the editor and in run traces."},
	{Name: "step_type", Kind: KindString, Required: true, Doc: "One of the step types below."},
	{Name: "purpose", Kind: KindString, Doc: "Why the step exists; documentation only, never rendered."},
	{Name: "child_steps", Kind: KindSteps, Doc: "Steps run after this one with its output as `{{input}}`. Several children run as parallel branches. Not allowed on display_result, join, retry and streaming_result."},
}

// specList holds the specs in documentation order. It is filled in init
// rather than by a variable initializer because the rules functions refer
// back to the registry, which Go would report as an initialization cycle.
var (
	specList []*StepSpec
	specs    = map[StepType]*StepSpec{}
)

func init() {
	register(llmSpecs()...)
	register(flowSpecs()...)
	register(knowledgeSpecs()...)
	register(integrationSpecs()...)
	register(contentSpecs()...)
}

func register(list ...*StepSpec) {
	for _, s := range list {
		if _, dup := specs[s.Type]; dup {
			panic("definition: step type registered twice: " + string(s.Type))
		}
		specs[s.Type] = s
		specList = append(specList, s)
	}
}

func rng(lo, hi float64) (*float64, *float64) { return &lo, &hi }

func minOnly(lo float64) *float64 { return &lo }

// field with bounds, written inline in the tables.
func bounded(f Field, lo, hi float64) Field {
	f.Min, f.Max = rng(lo, hi)
	return f
}
