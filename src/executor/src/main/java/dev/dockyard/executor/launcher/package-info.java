/**
 * {@code java -jar executor.war}: the launcher that lets the executor WAR run itself, as
 * {@code jenkins.war} does. {@link dev.dockyard.executor.launcher.Main} is the manifest's Main-Class
 * and is copied to the WAR's root, outside {@code WEB-INF}, so it uses nothing but {@code java.base}.
 * It lays the WAR out as jars plus a {@code classpath} file naming them, then starts
 * {@link dev.dockyard.executor.embedded.EmbeddedExecutor} from them. With {@code --extract DIR} it only
 * lays the WAR out: the sandbox image does that at build time and starts the JVM on the named jars
 * directly, because its AOT cache needs jars named on the command line. The default layout directory
 * must be private to its user, since whoever can write it chooses the code that runs with the
 * session key.
 */
package dev.dockyard.executor.launcher;
