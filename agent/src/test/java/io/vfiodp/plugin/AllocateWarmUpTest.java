package io.vfiodp.plugin;

import static io.vfiodp.plugin.Devices.pci;
import static io.vfiodp.plugin.Devices.resource;
import static io.vfiodp.plugin.Devices.state;
import static io.vfiodp.plugin.Devices.view;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.stub.StreamObserver;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AllocateWarmUpTest {

    private static final String T4 = "nvidia.com/TU104GL_TESLA_T4";
    private static final ExposedDevice GPU_A = pci("0000:3b:00.0", 12, 0);
    private static final ExposedDevice GPU_B = pci("0000:af:00.0", 87, 1);

    /** What the listener heard, in order. */
    private static final class Heard implements PluginListener {
        final List<String> calls = new ArrayList<>();

        @Override
        public void allocated(ResourceName resource, int devices) {
            calls.add("allocated " + resource.value() + " " + devices);
        }

        @Override
        public void allocationRefused(ResourceName resource) {
            calls.add("refused " + resource.value());
        }
    }

    private static final class Answers implements StreamObserver<AllocateResponse> {
        final List<AllocateResponse> values = new ArrayList<>();

        @Override
        public void onNext(AllocateResponse value) {
            values.add(value);
        }

        @Override
        public void onError(Throwable t) {
            throw new AssertionError(t);
        }

        @Override
        public void onCompleted() {}
    }

    @Test
    void warmUpAllocatesAHealthyDeviceWithoutTellingTheListenerAndTheKubeletsCallsCountAsBefore() {
        ResourceView view = view(state(resource(T4, GPU_A.withHealth(Health.unhealthy("gone")), GPU_B)), T4);
        Heard heard = new Heard();
        DevicePluginService service = new DevicePluginService(view, Runnable::run, heard);

        assertThat(service.warmUpAllocate()).isTrue();
        assertThat(heard.calls).isEmpty();

        Answers answers = new Answers();
        service.allocate(AllocateRequest.newBuilder()
                .addContainerRequests(ContainerAllocateRequest.newBuilder().addDevicesIds(GPU_B.id())).build(), answers);
        assertThat(heard.calls).containsExactly("allocated " + T4 + " 1");
        assertThat(answers.values).singleElement()
                .satisfies(r -> assertThat(r.getContainerResponses(0).getEnvsMap()).containsValue(GPU_B.id()));
    }

    @Test
    void withoutAHealthyDeviceThereIsNothingToWarmUp() {
        ResourceView view = view(state(resource(T4, GPU_A.withHealth(Health.unhealthy("gone")))), T4);
        Heard heard = new Heard();

        assertThat(new DevicePluginService(view, Runnable::run, heard).warmUpAllocate()).isFalse();
        assertThat(heard.calls).isEmpty();
    }
}
