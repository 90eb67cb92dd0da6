package io.vfiodp.kubelet;

import io.grpc.netty.shaded.io.netty.buffer.ByteBufAllocator;
import io.grpc.netty.shaded.io.netty.buffer.UnpooledByteBufAllocator;

/**
 * The buffer allocator of every channel opened to or for the kubelet, on both sides. gRPC's default
 * is a pooled allocator with an arena per core and per-thread caches, built for servers moving
 * megabytes a second; the kubelet sends a few hundred bytes per call, a few calls a minute, and the
 * pool kept megabytes resident for that (ServeBench; docs/deployment.md, "JVM flags"). Unpooled buffers are freed when
 * the message is, and Allocate is no slower with them.
 */
public final class UnpooledBuffers {

    public static final ByteBufAllocator ALLOCATOR = UnpooledByteBufAllocator.DEFAULT;

    private UnpooledBuffers() {
    }
}
