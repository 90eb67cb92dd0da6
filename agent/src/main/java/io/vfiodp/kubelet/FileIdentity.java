package io.vfiodp.kubelet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Optional;

/**
 * Which file sits at a path: inode and change time. A socket that was deleted and re-created
 * gets a new identity even where the file system reuses the inode number at once.
 */
public record FileIdentity(Object fileKey, FileTime changed) {

    public static Optional<FileIdentity> of(Path path) {
        try {
            var attrs = Files.readAttributes(path, "unix:ino,dev,ctime", LinkOption.NOFOLLOW_LINKS);
            return Optional.of(new FileIdentity(attrs.get("dev") + ":" + attrs.get("ino"), (FileTime) attrs.get("ctime")));
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
