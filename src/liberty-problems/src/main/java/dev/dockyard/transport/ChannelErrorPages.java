package dev.dockyard.transport;

import com.ibm.wsspi.http.VirtualHost;
import java.lang.reflect.Array;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Gives the HTTP channel's own error answers a problem+json body: a request line or header over
 * the configured limits, too many headers, a header line without a colon, a request line that is
 * not HTTP (400), a space in the request target (505). Liberty's channel sends these before any
 * container is asked, with an empty body.
 *
 * <p><b>This relies on Liberty internals</b>, read from Open Liberty 26.0.0.3's classes; no
 * feature exposes them as API or SPI. When the channel refuses a request
 * ({@code HttpInboundLink.sendErrorMessage} → {@code HttpInboundServiceContextImpl.sendError}),
 * {@code HttpServiceContextImpl.loadErrorBody} looks up an {@code HttpErrorPageService} with
 * {@code HttpDispatcher.getFramework().lookupService(HttpErrorPageService.class)} (none is
 * registered by Liberty itself), asks it for the {@code HttpErrorPageProvider} of the local port and
 * sends the buffers the provider's {@code accessPage(host, port, request, response)} returns, with
 * the headers it set on the response. Those types live in the bundle
 * {@code com.ibm.ws.transport.http}, whose packages a user feature cannot import; they are loaded
 * through the class loader of that bundle's own {@code VirtualHost} implementation and implemented
 * with {@link Proxy}. Should a Liberty upgrade move them, activation logs a warning and the channel
 * answers with empty bodies again; {@code TransportProblemsIT} fails on that upgrade.
 */
public class ChannelErrorPages {

    private static final Logger LOG = Logger.getLogger(ChannelErrorPages.class.getName());

    static final String DISPATCHER = "com.ibm.ws.http.dispatcher.internal.HttpDispatcher";
    static final String SERVICE = "com.ibm.wsspi.http.channel.error.HttpErrorPageService";
    static final String PROVIDER = "com.ibm.wsspi.http.channel.error.HttpErrorPageProvider";
    static final String REQUEST = "com.ibm.wsspi.http.channel.HttpRequestMessage";
    static final String RESPONSE = "com.ibm.wsspi.http.channel.HttpResponseMessage";
    static final String BUFFER = "com.ibm.wsspi.bytebuffer.WsByteBuffer";
    static final String BUFFER_MANAGER = "com.ibm.wsspi.bytebuffer.WsByteBufferPoolManager";

    private volatile VirtualHost virtualHost;
    private volatile Channel channel;
    private Object service;

    protected void setVirtualHost(VirtualHost host) {
        this.virtualHost = host;
    }

    protected void unsetVirtualHost(VirtualHost host) {
        if (virtualHost == host) {
            virtualHost = null;
        }
    }

    protected synchronized void activate() {
        try {
            channel = Channel.of(virtualHost.getClass().getClassLoader());
            Object provider = channel.proxy(PROVIDER, this::providerCall);
            service = channel.proxy(SERVICE, (proxy, method, args) -> serviceCall(proxy, method, args, provider));
            channel.register(service);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            channel = null;
            LOG.log(Level.WARNING, "dockyardProblems-1.0: this Liberty's HTTP channel does not have the error page"
                    + " service it was written for; requests the channel refuses get its empty answers ("
                    + e + ")");
        }
    }

    protected synchronized void deactivate() {
        if (channel != null) {
            try {
                channel.deregister(service);
            } catch (ReflectiveOperationException | RuntimeException e) {
                LOG.log(Level.FINE, "could not deregister the error page service", e);
            }
            channel = null;
        }
    }

    private Object serviceCall(Object proxy, Method method, Object[] args, Object provider) {
        return switch (method.getName()) {
            case "access" -> provider; // every port of this server
            case "register" -> false;
            case "deregister" -> null;
            default -> objectCall(proxy, method, args);
        };
    }

    private Object providerCall(Object proxy, Method method, Object[] args) {
        if (!method.getName().equals("accessPage")) {
            return objectCall(proxy, method, args);
        }
        Channel current = channel;
        try {
            return current == null ? null : current.page(args[3]);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // never thrown back: the channel would log an FFDC; it sends its empty answer instead
            LOG.log(Level.FINE, "could not write a problem for the channel's error", e);
            return null;
        }
    }

    private static Object objectCall(Object proxy, Method method, Object[] args) {
        return switch (method.getName()) {
            case "equals" -> proxy == args[0];
            case "hashCode" -> System.identityHashCode(proxy);
            case "toString" -> "dockyardProblems-1.0 " + method.getDeclaringClass().getSimpleName();
            default -> throw new UnsupportedOperationException(method.getName());
        };
    }

    /** The channel's types and methods, looked up once through the transport bundle's class loader. */
    private record Channel(ClassLoader loader, Object framework, Class<?> serviceType, Method registerService,
                           Method lookupService, Method deregisterService, Method getBufferManager, Method wrap,
                           Class<?> bufferType, Method getStatusCode, Method setHeader, Method setContentLength) {

        static Channel of(ClassLoader transport) throws ReflectiveOperationException {
            Class<?> dispatcher = Class.forName(DISPATCHER, true, transport);
            Method getFramework = dispatcher.getMethod("getFramework");
            Object framework = getFramework.invoke(null);
            if (framework == null) {
                throw new IllegalStateException("no channel framework");
            }
            // the service is looked up by its Class: it must be the one the channel's own classes resolve
            ClassLoader loader = dispatcher.getClassLoader();
            Class<?> frameworkType = getFramework.getReturnType();
            Class<?> response = Class.forName(RESPONSE, false, loader);
            // the provider's one method, as the channel calls it: checked now rather than on a refused request
            Class.forName(PROVIDER, false, loader)
                    .getMethod("accessPage", String.class, int.class, Class.forName(REQUEST, false, loader), response);
            return new Channel(loader, framework, Class.forName(SERVICE, false, loader),
                    frameworkType.getMethod("registerService", Class.class, Object.class),
                    frameworkType.getMethod("lookupService", Class.class),
                    frameworkType.getMethod("deregisterService", Class.class),
                    dispatcher.getMethod("getBufferManager"),
                    Class.forName(BUFFER_MANAGER, false, loader).getMethod("wrap", byte[].class),
                    Class.forName(BUFFER, false, loader),
                    response.getMethod("getStatusCodeAsInt"),
                    response.getMethod("setHeader", String.class, String.class),
                    response.getMethod("setContentLength", long.class));
        }

        Object proxy(String type, InvocationHandler handler) throws ClassNotFoundException {
            return Proxy.newProxyInstance(loader, new Class<?>[] {Class.forName(type, false, loader)}, handler);
        }

        void register(Object service) throws ReflectiveOperationException {
            registerService.invoke(framework, serviceType, service);
        }

        void deregister(Object service) throws ReflectiveOperationException {
            if (lookupService.invoke(framework, serviceType) == service) {
                deregisterService.invoke(framework, serviceType);
            }
        }

        /** The body buffers for the response the channel is about to send, its Content-Type set. */
        Object page(Object response) throws ReflectiveOperationException {
            int status = (Integer) getStatusCode.invoke(response);
            byte[] body = TransportProblem.forChannelStatus(status).jsonBytes();
            // setMIMEType would add the channel's default ";charset=ISO-8859-1": the body is UTF-8 JSON
            setHeader.invoke(response, "Content-Type", TransportProblem.MEDIA_TYPE);
            setContentLength.invoke(response, (long) body.length);
            Object buffers = Array.newInstance(bufferType, 1);
            Array.set(buffers, 0, wrap.invoke(getBufferManager.invoke(null), (Object) body));
            return buffers;
        }
    }
}
