package dev.dockyard;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The packages that depend on each other in a circle, directly or through others: the strongly
 * connected parts of the package graph with more than one package (Tarjan's algorithm), each as
 * the set of its packages. Deterministic, unlike the list of elementary cycles, whose number grows
 * much faster than the tangle it describes.
 */
final class PackageTangles {

    private final Map<String, Set<String>> graph;
    private final Map<String, Integer> index = new HashMap<>();
    private final Map<String, Integer> low = new HashMap<>();
    private final Deque<String> stack = new ArrayDeque<>();
    private final Set<String> onStack = new HashSet<>();
    private final List<Set<String>> tangles = new ArrayList<>();
    private int next;

    private PackageTangles(Map<String, Set<String>> graph) {
        this.graph = graph;
    }

    /**
     * The package dependencies that take part in a circle: "from -> to" for each dependency whose
     * two packages are in one tangle, sorted.
     */
    static Set<String> edges(JavaClasses classes, String root) {
        Map<String, Set<String>> graph = graph(classes, root);
        Set<String> edges = new TreeSet<>();
        for (Set<String> tangle : tangles(graph)) {
            for (String from : tangle) {
                for (String to : graph.getOrDefault(from, Set.of())) {
                    if (tangle.contains(to)) {
                        edges.add(from + " -> " + to);
                    }
                }
            }
        }
        return edges;
    }

    private static Map<String, Set<String>> graph(JavaClasses classes, String root) {
        Map<String, Set<String>> graph = new TreeMap<>();
        for (JavaClass origin : classes) {
            String from = origin.getPackageName();
            if (!under(from, root)) {
                continue;
            }
            Set<String> targets = graph.computeIfAbsent(from, p -> new TreeSet<>());
            for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
                String to = dependency.getTargetClass().getPackageName();
                if (under(to, root) && !to.equals(from)) {
                    targets.add(to);
                }
            }
        }
        return graph;
    }

    private static boolean under(String pkg, String root) {
        return pkg.equals(root) || pkg.startsWith(root + ".");
    }

    private static List<Set<String>> tangles(Map<String, Set<String>> graph) {
        PackageTangles search = new PackageTangles(graph);
        graph.keySet().forEach(p -> {
            if (!search.index.containsKey(p)) {
                search.visit(p);
            }
        });
        return search.tangles;
    }

    private void visit(String start) {
        // iterative Tarjan: the package graph is shallow, but recursion depth is not worth the risk
        Deque<Map.Entry<String, List<String>>> work = new ArrayDeque<>();
        enter(start);
        work.push(Map.entry(start, new ArrayList<>(graph.getOrDefault(start, Set.of()))));
        while (!work.isEmpty()) {
            Map.Entry<String, List<String>> top = work.peek();
            String node = top.getKey();
            List<String> left = top.getValue();
            if (!left.isEmpty()) {
                String target = left.remove(0);
                if (!index.containsKey(target)) {
                    enter(target);
                    work.push(Map.entry(target, new ArrayList<>(graph.getOrDefault(target, Set.of()))));
                } else if (onStack.contains(target)) {
                    low.put(node, Math.min(low.get(node), index.get(target)));
                }
                continue;
            }
            work.pop();
            if (!work.isEmpty()) {
                String parent = work.peek().getKey();
                low.put(parent, Math.min(low.get(parent), low.get(node)));
            }
            if (low.get(node).equals(index.get(node))) {
                Set<String> component = new TreeSet<>();
                String member;
                do {
                    member = stack.pop();
                    onStack.remove(member);
                    component.add(member);
                } while (!member.equals(node));
                if (component.size() > 1) {
                    tangles.add(component);
                }
            }
        }
    }

    private void enter(String node) {
        index.put(node, next);
        low.put(node, next);
        next++;
        stack.push(node);
        onStack.add(node);
    }
}
