/**
 * Runtime images: a user's base image turned into one that carries the executor, never rebuilt
 * when an equivalent one exists. {@link dev.dockyard.images.RuntimeImageTags} names the three
 * tags of the OpenHands scheme (versioned, lock, source) that make the reuse chain possible;
 * {@link dev.dockyard.images.ReuseChain} keeps reuse within one set of extra dependencies, and
 * {@link dev.dockyard.images.BuildScriptPolicy} decides who may have a build script run.
 */
package dev.dockyard.images;
