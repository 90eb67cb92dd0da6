package io.vfiodp.demo;

import io.vfiodp.proto.deviceplugin.v1beta1.DeviceSpec;
import java.io.PrintWriter;
import java.util.Map;
import java.util.TreeMap;

/** Prints what the container gets: env vars, then device nodes with their cgroup permissions. */
final class EnvAndDeviceSpecPrinter implements AllocationPrinter {

    @Override
    public void print(DemoAllocation allocation, PrintWriter out) {
        for (Map.Entry<String, String> e : new TreeMap<>(allocation.response().getEnvsMap()).entrySet()) {
            out.println("    env     " + e.getKey() + "=" + e.getValue());
        }
        for (DeviceSpec d : allocation.response().getDevicesList()) {
            String path = d.getHostPath().equals(d.getContainerPath()) ? d.getHostPath() : d.getHostPath() + " -> " + d.getContainerPath();
            out.println("    device  " + path + " (" + d.getPermissions() + ")");
        }
    }
}
