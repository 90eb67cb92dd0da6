package io.vfiodp.bench;

import java.util.Arrays;

/**
 * Whether a sampled series grows: the median of its last third against the median of its first
 * third. Medians of thirds ignore a GC sawtooth and single spikes, and still see a slow steady
 * rise, which moves every value of the last third above those of the first. A step up that stays
 * up counts as a rise too: a run of minutes cannot tell a step from the first stair of a slow
 * leak, and a one-off step of known size belongs in the tolerance. The Theil–Sen slope (the
 * median of all pairwise slopes) is reported to size the growth, not to decide it.
 *
 * @param firstThird     median of the first third of the values
 * @param lastThird      median of the last third
 * @param slopePerMinute Theil–Sen slope over all the values
 * @param tolerance      the rise allowed between the two medians
 */
record Trend(double firstThird, double lastThird, double slopePerMinute, double tolerance) {

    /** Fewer values leave a third with a single value, whose "median" is that value, spikes included. */
    static final int MIN_VALUES = 6;

    Trend {
        if (!(tolerance >= 0)) throw new IllegalArgumentException("tolerance " + tolerance + " must be >= 0");
    }

    /**
     * @param minutes when each value was taken, ascending
     * @param values  the series
     */
    static Trend of(double[] minutes, double[] values, double tolerance) {
        if (minutes.length != values.length) {
            throw new IllegalArgumentException(minutes.length + " times for " + values.length + " values");
        }
        if (values.length < MIN_VALUES) throw new IllegalArgumentException(values.length + " values, at least " + MIN_VALUES + " needed");
        int third = values.length / 3;
        return new Trend(median(Arrays.copyOfRange(values, 0, third)), median(Arrays.copyOfRange(values, values.length - third, values.length)),
                theilSen(minutes, values), tolerance);
    }

    double rise() {
        return lastThird - firstThird;
    }

    boolean isRising() {
        return rise() > tolerance;
    }

    private static double theilSen(double[] x, double[] y) {
        double[] slopes = new double[x.length * (x.length - 1) / 2];
        int n = 0;
        for (int i = 0; i < x.length; i++) {
            for (int j = i + 1; j < x.length; j++) {
                if (x[j] > x[i]) slopes[n++] = (y[j] - y[i]) / (x[j] - x[i]);
            }
        }
        return n == 0 ? 0 : median(Arrays.copyOf(slopes, n));
    }

    private static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        int mid = v.length / 2;
        return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
    }
}
