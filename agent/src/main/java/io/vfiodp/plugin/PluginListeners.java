package io.vfiodp.plugin;

import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;
import java.util.List;

/** Several listeners as one, called in order. */
public record PluginListeners(List<PluginListener> all) implements PluginListener {

    public PluginListeners {
        all = List.copyOf(all);
    }

    public static PluginListener of(PluginListener... listeners) {
        return new PluginListeners(List.of(listeners));
    }

    @Override
    public void allocated(ResourceName resource, int devices) {
        for (PluginListener l : all) l.allocated(resource, devices);
    }

    @Override
    public void allocationRefused(ResourceName resource) {
        for (PluginListener l : all) l.allocationRefused(resource);
    }

    @Override
    public void registered(ResourceName resource, boolean again) {
        for (PluginListener l : all) l.registered(resource, again);
    }

    @Override
    public void healthChanged(ResourceName resource, String deviceId, Health from, Health to) {
        for (PluginListener l : all) l.healthChanged(resource, deviceId, from, to);
    }

    @Override
    public void reconciled(double seconds) {
        for (PluginListener l : all) l.reconciled(seconds);
    }
}
