package isolation

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentry/agentry/internal/testserver"
)

// A source's contents list (an extension) is the owner's: B gets a 404
// for A's source, never its titles or statuses.

func init() {
	register(
		Case{Op: "GET /sources/{source_connection_id}/contents", Name: "B lists A's contents", Setup: knOfA, Expect: NotFound(),
			Control: Status(http.StatusOK, func(t testing.TB, _ *Ctx, r testserver.Response) {
				t.Helper()
				if !strings.Contains(string(r.Body), `"title":"Plan"`) {
					t.Errorf("A's list misses its own content: %.300s", r.Body)
				}
			})},
	)
}
