package io.vfiodp.kube.kubevirt.model;

/** A USB device selector: vendor and product ids. */
public class UsbSelector extends UnknownFields {

    private String vendor;
    private String product;

    public String getVendor() {
        return vendor;
    }

    public void setVendor(String vendor) {
        this.vendor = vendor;
    }

    public String getProduct() {
        return product;
    }

    public void setProduct(String product) {
        this.product = product;
    }
}
