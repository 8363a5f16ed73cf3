package dev.dockyard.api;

import dev.dockyard.tenancy.Role;
import jakarta.enterprise.context.RequestScoped;

/** Who is making the current request, as established by {@link ApiKeyFilter}. */
@RequestScoped
public class Caller {

    private String userId;
    private Role role;

    void authenticate(String userId, Role role) {
        this.userId = userId;
        this.role = role;
    }

    public String userId() {
        return userId;
    }

    public Role role() {
        return role;
    }

    public boolean isAdmin() {
        return role == Role.ADMIN;
    }

    /** Whether this caller may see a resource owned by {@code ownerId}. */
    public boolean canSee(String ownerId) {
        return isAdmin() || (userId != null && userId.equals(ownerId));
    }
}
