/**
 * Who may use which image: {@link dev.dockyard.application.images.ImageAccess}, asked by every
 * request that names an image.
 */
package dev.dockyard.application.images;
