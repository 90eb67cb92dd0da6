package io.vfiodp.node;

/**
 * Reads what the node should serve right now (scan, then policy). Called once at start, then on
 * every rescan; a failure keeps the previous state in place.
 */
@FunctionalInterface
public interface NodeStateSource {
    TargetState read();

    /**
     * As {@link #read()}, reading the whole host again where a source otherwise reads only what
     * changed: the periodic rescan, the safety net under kernel uevents.
     */
    default TargetState readFully() {
        return read();
    }

    /**
     * Whether the state just read holds what only another pass settles: devices the host took
     * away, served this once as Unhealthy, or devices waiting for the other side (device plugins
     * or DRA) to let go of them. The node loop then asks for that pass soon; under kernel uevents
     * the next event or the periodic rescan may be minutes away.
     */
    default boolean wantsAnotherPass() {
        return false;
    }
}
