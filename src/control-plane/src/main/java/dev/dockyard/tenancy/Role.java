package dev.dockyard.tenancy;

/** API.md's roles: a user sees and touches only their own runtimes; an admin sees all and manages users. */
public enum Role {
    USER, ADMIN
}
