package io.vfiodp.policy.config;

/** A configuration file that cannot be used at all; the message names the file, line and field. */
public final class InvalidConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    public InvalidConfigException(String message, Throwable cause) {
        super(message, cause);
    }

    public InvalidConfigException(String message) {
        super(message);
    }
}
