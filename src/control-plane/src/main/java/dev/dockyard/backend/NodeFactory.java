package dev.dockyard.backend;

/**
 * Opens the nodes of one {@link NodeType} from their settings ({@code dockyard.node.<name>.*}).
 * One CDI bean per type, beside the backend it builds; {@link ConfiguredNodes} picks the one whose
 * type a node names, so the registry knows no backend by its class.
 */
public interface NodeFactory {

    /** The type of the nodes this factory opens. */
    NodeType type();

    /**
     * Opens node {@code name}; {@code first} says whether it is the first configured node (the
     * default, which may take settings that predate nodes, e.g. {@code dockyard.docker.host}).
     *
     * @throws IllegalStateException when its settings are wrong: the control plane does not start
     */
    BackendNode open(String name, boolean first);
}
