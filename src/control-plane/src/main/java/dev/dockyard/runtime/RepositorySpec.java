package dev.dockyard.runtime;

import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.io.StringReader;
import java.net.URI;
import java.util.regex.Pattern;

/**
 * The git repository a runtime's workspace starts from: cloned at provisioning into
 * {@code /workspace/<name>}, on {@code branch} (the remote's default when null), then switched to a
 * new {@code newBranch} when given. {@code credential} names one of the user's stored credentials:
 * its value is git's token (through a credential helper), never part of the URL.
 */
public record RepositorySpec(String url, String branch, String newBranch, String credential) {

    private static final Pattern BRANCH = Pattern.compile("^(?!-)(?!.*\\.\\.)(?!.*//)[A-Za-z0-9._/-]{1,200}(?<![./])$");
    private static final Pattern NAME = Pattern.compile("^[A-Za-z_][A-Za-z0-9_]{0,99}$");

    public RepositorySpec {
        URI uri;
        try {
            uri = URI.create(url == null ? "" : url);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("repository.url is not a URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme();
        if (!scheme.equals("https") && !scheme.equals("http") && !scheme.equals("file")) {
            throw new IllegalArgumentException("repository.url must be an https://, http:// or file:// URL");
        }
        if (uri.getRawUserInfo() != null) {
            throw new IllegalArgumentException("repository.url must not carry credentials: store the token as a "
                    + "credential and name it in repository.credential");
        }
        if (url.length() > 1000 || url.chars().anyMatch(c -> c <= ' ')) {
            throw new IllegalArgumentException("repository.url must be at most 1000 characters without spaces");
        }
        for (String b : new String[] {branch, newBranch}) {
            if (b != null && !BRANCH.matcher(b).matches()) {
                throw new IllegalArgumentException("'" + b + "' is not a branch name");
            }
        }
        if (credential != null && !NAME.matcher(credential).matches()) {
            throw new IllegalArgumentException("repository.credential must name a stored credential");
        }
    }

    /**
     * Where git may use the credential: the URL's scheme, host and port (git's URL-scoped
     * {@code credential.<url>.helper}), so the token never goes to another server.
     */
    public String credentialScope() {
        URI uri = URI.create(url);
        return uri.getScheme() + "://" + uri.getRawAuthority();
    }

    /** The directory it is cloned into: /workspace/ + the URL's last path segment without .git. */
    public String directory(String workspace) {
        String path = URI.create(url).getPath().replaceAll("/+$", "");
        String name = path.substring(path.lastIndexOf('/') + 1).replaceAll("\\.git$", "");
        return workspace + "/" + (name.isEmpty() || name.startsWith(".") ? "repository" : name);
    }

    public String toJson() {
        JsonObjectBuilder b = Jsonp.createObjectBuilder().add("url", url);
        if (branch != null) {
            b.add("branch", branch);
        }
        if (newBranch != null) {
            b.add("newBranch", newBranch);
        }
        if (credential != null) {
            b.add("credential", credential);
        }
        return b.build().toString();
    }

    public static RepositorySpec fromJson(String json) {
        try (var reader = Jsonp.createReader(new StringReader(json))) {
            JsonObject o = reader.readObject();
            return new RepositorySpec(o.getString("url"), o.getString("branch", null), o.getString("newBranch", null),
                    o.getString("credential", null));
        }
    }
}
