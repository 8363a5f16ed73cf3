/**
 * The users use case, an administrator's: creating users, rotating their keys, deleting them
 * ({@link dev.dockyard.application.users.UserAdministration}), and removing everything a deleted
 * user kept under their id so that an id given again starts with nothing of the old account's
 * ({@link dev.dockyard.application.users.UserRecords}).
 */
package dev.dockyard.application.users;
