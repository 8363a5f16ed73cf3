package dev.dockyard.placement;

import java.util.Map;

/**
 * The memory warm pool members hold on each node (node → MB). A warm member is not a runtime and
 * takes no runtime slot, but its sandbox holds its memory from the moment it boots: a node's memory
 * capacity counts it, so that refills cannot push a node past what it was given, and a claim only
 * needs a free slot (the memory moves from the member to the runtime).
 */
public interface WarmMembers {

    Map<String, Long> memoryByNode();
}
