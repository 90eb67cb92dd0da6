package io.vfiodp.hooks;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.function.Supplier;

/** OnDefineDomain as every Callbacks version answers it: same fields, same meaning. */
final class DefineCall {

    private DefineCall() {}

    /** Sends {@code result}, or the error it raised, so virt-launcher always gets a status with a reason. */
    static <R> void respond(StreamObserver<R> response, Supplier<R> result) {
        R value;
        try {
            value = result.get();
        } catch (StatusRuntimeException e) {
            response.onError(e);
            return;
        } catch (RuntimeException e) {
            response.onError(Status.INTERNAL.withDescription("vfio-device-plugin hook: " + e).withCause(e).asRuntimeException());
            return;
        }
        response.onNext(value);
        response.onCompleted();
    }

    /** The domain XML to answer with; a failed definition becomes a gRPC error virt-launcher reports. */
    static ByteString answer(DomainDefinitionHook hook, ByteString domainXml, ByteString vmi) {
        return switch (hook.onDefineDomain(domainXml.toByteArray(), vmi.toByteArray())) {
            case DefineOutcome.Changed c -> ByteString.copyFrom(c.domainXml());
            case DefineOutcome.Unchanged u -> domainXml;
            case DefineOutcome.Failed f -> throw new StatusRuntimeException(
                    Status.FAILED_PRECONDITION.withDescription("vfio-device-plugin hook: " + f.message()));
        };
    }
}
