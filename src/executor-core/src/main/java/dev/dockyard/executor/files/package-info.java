/**
 * File actions carried out as OpenHands carries them out, with the texts agents were trained on.
 * {@link dev.dockyard.executor.files.FileActions} does {@code read} and {@code write};
 * {@link dev.dockyard.executor.files.FileEditor} is openhands-aci's editor (view, create, str_replace,
 * insert, undo_edit) with a bounded undo history and an optional lint of Python edits
 * ({@link dev.dockyard.executor.files.EditLinter}); {@link dev.dockyard.executor.files.FileTransfer}
 * handles uploads, zip downloads and listings, carrying permission bits in the zip entries
 * ({@link dev.dockyard.executor.files.UnixModes}). Every path first passes
 * {@link dev.dockyard.executor.files.PathGuard}, which checks the real path, links followed, against
 * the workspace. {@code Difflib} is Python's difflib ported line for line, because another diff
 * algorithm lines up ambiguous changes differently and the agent would not see OpenHands' diff.
 */
package dev.dockyard.executor.files;
