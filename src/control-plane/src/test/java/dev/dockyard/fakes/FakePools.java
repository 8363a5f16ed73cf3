package dev.dockyard.fakes;

import dev.dockyard.pool.PoolDefinition;
import dev.dockyard.pool.PoolMember;
import dev.dockyard.pool.PoolRepository;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The pool tables in memory, for unit tests that need a few of its answers (override what the test
 * is about). No runtime rows here: nothing claimed is live, and no runtime exists.
 */
public class FakePools implements PoolRepository {

    private final Map<String, PoolDefinition> definitions = new TreeMap<>();
    private final Map<String, PoolMember> members = new LinkedHashMap<>();

    @Override
    public synchronized List<PoolDefinition> definitions() {
        return new ArrayList<>(definitions.values());
    }

    @Override
    public synchronized Optional<PoolDefinition> definition(String name) {
        return Optional.ofNullable(definitions.get(name));
    }

    @Override
    public synchronized void add(PoolDefinition definition) {
        definitions.put(definition.name(), definition);
    }

    @Override
    public synchronized void remove(PoolDefinition definition) {
        definitions.remove(definition.name());
    }

    @Override
    public synchronized Map<String, Long> memberMemoryByNode() {
        Map<String, Long> memory = new HashMap<>();
        for (PoolMember member : members.values()) {
            PoolDefinition pool = definitions.get(member.pool());
            if (pool != null) {
                memory.merge(member.node(), (long) pool.memoryMb(), Long::sum);
            }
        }
        return memory;
    }

    @Override
    public synchronized List<PoolMember> members(String controlPlane) {
        return members.values().stream().filter(m -> m.controlPlane().equals(controlPlane)).toList();
    }

    @Override
    public synchronized Optional<PoolMember> member(String id) {
        return Optional.ofNullable(members.get(id));
    }

    @Override
    public synchronized void add(PoolMember member) {
        members.put(member.id(), member);
    }

    @Override
    public synchronized boolean delete(String id, PoolMember.Status status) {
        PoolMember member = members.get(id);
        if (member == null || (status != null && member.status() != status)) {
            return false;
        }
        members.remove(id);
        return true;
    }

    @Override
    public synchronized boolean claim(String id, String shape) {
        PoolMember member = members.get(id);
        if (member == null || member.status() != PoolMember.Status.READY || !member.shape().equals(shape)) {
            return false;
        }
        members.remove(id);
        return true;
    }

    @Override
    public long claimedLive(String pool) {
        return 0;
    }

    @Override
    public boolean runtimeExists(String id) {
        return false;
    }
}
