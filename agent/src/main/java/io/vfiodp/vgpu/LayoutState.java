package io.vfiodp.vgpu;

/** The value of the node annotation {@value LayoutEvents#ANNOTATION}. */
public enum LayoutState {
    PENDING, SUCCESS, FAILED;

    public String wireValue() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
