package io.vfiodp.demo;

/**
 * The demo's plugin side did not do its part: it did not start serving, did not register with
 * the kubelet simulator, or did not stop cleanly. The message says which, with the plugin's
 * state and last output lines, so that the demo can end with it instead of a stack trace.
 */
public final class ServeFailure extends RuntimeException {

    public ServeFailure(String message) {
        super(message);
    }
}
