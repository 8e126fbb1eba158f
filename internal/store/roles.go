package store

// Roles a user holds in an account, strongest first. The memberships that
// hold them are the accounts area's (internal/accounts/directory); the
// words stay here because the principal (auth), the accounts area, the
// operator's commands and many tests all speak them.
const (
	RoleOwner  = "owner"
	RoleAdmin  = "admin"
	RoleMember = "member"
)

// ValidRole reports whether r is one of the three roles.
func ValidRole(r string) bool { return r == RoleOwner || r == RoleAdmin || r == RoleMember }

// WeakerRole returns the less powerful of two roles (owner > admin > member);
// an unknown role counts as the weakest.
func WeakerRole(a, b string) string {
	if RoleStrength(b) < RoleStrength(a) {
		return b
	}
	return a
}

// RoleStrength orders roles: owner 3, admin 2, member 1, anything else 0.
func RoleStrength(r string) int {
	switch r {
	case RoleOwner:
		return 3
	case RoleAdmin:
		return 2
	case RoleMember:
		return 1
	}
	return 0
}
