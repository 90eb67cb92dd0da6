import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassFileVersion;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.lang.constant.ClassDesc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Rewrites the class files under a directory that are older than Java 6 (major version below 50)
 * as Java 8 class files with stack maps, in place, so that the AOT cache can hold them.
 *
 * <p>Why (build.sh runs it on picocli's classes): HotSpot leaves class files older than Java 6 out
 * of a CDS archive or AOT cache, since they lack the stack maps that verification at dump time
 * needs. picocli 4.7 is compiled for Java 5, so every start loaded its classes from the jar and
 * ran them through the old inferencing verifier before {@code serve} could parse its options.
 * The bytecode itself is kept as it is; only the version and the computed stack maps change, and
 * the JVM verifies the result like any other class file.
 *
 * <p>Usage: {@code java ArchivableClassFiles.java DIR} (JDK 24+: the ClassFile API).
 */
public final class ArchivableClassFiles {

    private static final int FIRST_ARCHIVABLE = ClassFile.JAVA_6_VERSION;

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: java ArchivableClassFiles.java DIR");
            System.exit(2);
        }
        Path root = Path.of(args[0]);
        ClassFile classFile = ClassFile.of(ClassFile.StackMapsOption.GENERATE_STACK_MAPS,
                ClassFile.ClassHierarchyResolverOption.of(ClassHierarchyResolver.ofResourceParsing(desc -> open(root, desc))
                        .orElse(ClassHierarchyResolver.defaultResolver())));
        List<Path> files;
        try (Stream<Path> walk = Files.walk(root)) {
            files = walk.filter(p -> p.toString().endsWith(".class")).sorted().toList();
        }
        int rewritten = 0;
        for (Path file : files) {
            ClassModel model = classFile.parse(Files.readAllBytes(file));
            if (model.majorVersion() >= FIRST_ARCHIVABLE) continue;
            // rebuilding every method body is what makes the ClassFile API generate its stack map
            byte[] rewrittenBytes = classFile.transformClass(model, ClassTransform.transformingMethodBodies(CodeTransform.ACCEPT_ALL)
                    .andThen((builder, element) -> {
                        if (element instanceof ClassFileVersion) builder.withVersion(ClassFile.JAVA_8_VERSION, 0);
                        else builder.with(element);
                    }));
            Files.write(file, rewrittenBytes);
            rewritten++;
        }
        System.out.println("image: " + rewritten + " of " + files.size() + " class files under " + root
                + " rewritten as Java 8 class files with stack maps (archivable)");
    }

    /** The class file of {@code desc} under {@code root}, or null for the next resolver (the JDK's classes). */
    private static InputStream open(Path root, ClassDesc desc) {
        String binaryName = desc.descriptorString().substring(1, desc.descriptorString().length() - 1);
        Path file = root.resolve(binaryName + ".class");
        if (!Files.isRegularFile(file)) return null;
        try {
            return Files.newInputStream(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
