package io.vfiodp.dra.kubelet;

/** The driver's two sockets: the DRA service the kubelet calls, and the registration its plugin watcher finds. */
public enum DriverSocket {

    /** {@code <pluginDir>/dra.sock}: node service v1 and v1beta1, health. */
    SERVICE("DRA service"),
    /** {@code <registryDir>/<driver>-reg.sock}: pluginregistration v1. */
    REGISTRATION("registration");

    private final String what;

    DriverSocket(String what) {
        this.what = what;
    }

    /** How the log names it. */
    public String what() {
        return what;
    }
}
