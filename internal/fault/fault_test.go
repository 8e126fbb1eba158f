package fault

import (
	"errors"
	"fmt"
	"testing"
)

// areaError is an area's own error type that says which kind it is.
type areaError struct{ field string }

func (e *areaError) Error() string { return e.field + ": bad" }

func (e *areaError) As(target any) bool {
	t, ok := target.(**Invalid)
	if ok {
		*t = InvalidField(e.field, "is bad").Because(e)
	}
	return ok
}

func TestStoreSentinelsAreTheVocabulary(t *testing.T) {
	named := NotFoundOf("Agent")
	if !errors.Is(named, ErrNotFound) {
		t.Error("a named not-found does not match ErrNotFound")
	}
	if errors.Is(ErrNotFound, named) {
		t.Error("the bare not-found matches a named one")
	}
	if got := ErrNotFound.Error(); got != "not found" {
		t.Errorf("bare not-found reads %q", got)
	}
	credits := &NoCredits{AccountID: "a", Estimate: 2, Balance: 1}
	if !errors.Is(credits, ErrNoCredits) || !credits.Figures() {
		t.Error("an up-front refusal is not a NoCredits with figures")
	}
	if ErrNoCredits.(*NoCredits).Figures() {
		t.Error("the bare NoCredits claims figures")
	}
	if got := credits.Error(); got != "the request is estimated up front at 2 credits and the account has 1" {
		t.Errorf("NoCredits reads %q", got)
	}
}

func TestNameNamesOnlyABareNotFound(t *testing.T) {
	wrapped := fmt.Errorf("loading: %w", ErrNotFound)
	nf, ok := Outermost(Name(wrapped, "Agent")).(*NotFound)
	if !ok || nf.What != "Agent" {
		t.Fatalf("Name(bare) = %v", Outermost(Name(wrapped, "Agent")))
	}
	if got := Name(NotFoundOf("Upload"), "Agent"); got.Error() != "Upload not found" {
		t.Errorf("Name renamed a named not-found: %v", got)
	}
	// A refusal wrapping a not-found is the refusal, not a not-found.
	ref := Referenced(ErrNotFound, "agent_id", "no agent x")
	if got := Name(ref, "Agent"); got != ref {
		t.Errorf("Name wrapped an Invalid: %v", got)
	}
	if _, ok := Outermost(ref).(*Invalid); !ok {
		t.Errorf("Referenced(not found) is %T", Outermost(ref))
	}
	other := errors.New("boom")
	if Name(other, "Agent") != other || Outermost(other) != nil {
		t.Error("an error of no kind was changed or classified")
	}
}

func TestOutermostDecides(t *testing.T) {
	inner := &areaError{field: "name"}
	outer := &BadRequest{Msg: "refused", Err: inner}
	if _, ok := Outermost(outer).(*BadRequest); !ok {
		t.Errorf("outer BadRequest lost to %T", Outermost(outer))
	}
	inv, ok := Outermost(fmt.Errorf("ctx: %w", inner)).(*Invalid)
	if !ok || inv.Items[0].Loc[1] != "name" || !errors.As(inv, new(*areaError)) {
		t.Fatalf("an area type's As is not read: %#v", Outermost(inner))
	}
	joined := errors.Join(errors.New("plain"), &Conflict{Msg: "taken"})
	if c, ok := Outermost(joined).(*Conflict); !ok || c.Msg != "taken" {
		t.Errorf("a fault inside a join is missed: %v", Outermost(joined))
	}
}

func TestSentinelTextComesFromTheCause(t *testing.T) {
	s := &Conflict{Err: errors.New("the run has already finished")}
	if s.Error() != "the run has already finished" {
		t.Errorf("sentinel reads %q", s.Error())
	}
	f := FieldSentinel([]any{"body", "hosts"}, "value_error", "invalid hosts")
	if f.Error() != "invalid hosts" || !errors.Is(fmt.Errorf("%w: at most 3", f), f) {
		t.Errorf("field sentinel reads %q", f.Error())
	}
	if got := UploadTooLarge(200<<20, nil).Msg; got != "The file is larger than the upload limit of 200 MiB" {
		t.Errorf("UploadTooLarge says %q", got)
	}
	if got := UploadTooLarge(1000, nil).Msg; got != "The file is larger than the upload limit of 1000 bytes" {
		t.Errorf("UploadTooLarge says %q", got)
	}
}
