package io.vfiodp.plugin;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.Objects;

/** The answer of a pure RPC function: a response, or a refusal with the gRPC code to send. */
public sealed interface RpcOutcome<T> {

    record Granted<T>(T response) implements RpcOutcome<T> {
        public Granted {
            Objects.requireNonNull(response, "response");
        }
    }

    record Refused<T>(Status.Code code, String message) implements RpcOutcome<T> {
        public Refused {
            Objects.requireNonNull(code, "code");
            if (code == Status.Code.OK) throw new IllegalArgumentException("a refusal cannot carry code OK");
            Objects.requireNonNull(message, "message");
        }

        public StatusRuntimeException asException() {
            return Status.fromCode(code).withDescription(message).asRuntimeException();
        }
    }

    static <T> RpcOutcome<T> invalid(String message) {
        return new Refused<>(Status.Code.INVALID_ARGUMENT, message);
    }

    static <T> RpcOutcome<T> failedPrecondition(String message) {
        return new Refused<>(Status.Code.FAILED_PRECONDITION, message);
    }
}
