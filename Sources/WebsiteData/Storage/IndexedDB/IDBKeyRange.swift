/// A range of keys: a lower and an upper bound, each open or closed, or one key alone.
///
/// As `IDBKeyRange` in the specification. The factories do not throw, so a range can be written
/// inline (`store.getAll(.bound(1, 10))`); an invalid range (a NaN key, or a lower bound above
/// the upper one) is refused with `DataError` by the operation it is given to.
public struct IDBKeyRange: Sendable, Hashable, CustomStringConvertible {
    /// The lower bound, or `nil` for none.
    public let lower: IDBKey?
    /// The upper bound, or `nil` for none.
    public let upper: IDBKey?
    /// Whether the lower bound itself is left out.
    public let lowerOpen: Bool
    /// Whether the upper bound itself is left out.
    public let upperOpen: Bool

    init(lower: IDBKey?, upper: IDBKey?, lowerOpen: Bool, upperOpen: Bool) {
        self.lower = lower
        self.upper = upper
        self.lowerOpen = lower == nil ? true : lowerOpen
        self.upperOpen = upper == nil ? true : upperOpen
    }

    /// The range holding one key.
    ///
    /// - Parameter key: the key.
    /// - Returns: `[key, key]`.
    public static func only(_ key: IDBKey) -> IDBKeyRange {
        IDBKeyRange(lower: key, upper: key, lowerOpen: false, upperOpen: false)
    }

    /// The keys from `lower` up.
    ///
    /// - Parameters:
    ///   - lower: the lower bound.
    ///   - open: whether `lower` itself is left out.
    /// - Returns: the range.
    public static func lowerBound(_ lower: IDBKey, open: Bool = false) -> IDBKeyRange {
        IDBKeyRange(lower: lower, upper: nil, lowerOpen: open, upperOpen: true)
    }

    /// The keys up to `upper`.
    ///
    /// - Parameters:
    ///   - upper: the upper bound.
    ///   - open: whether `upper` itself is left out.
    /// - Returns: the range.
    public static func upperBound(_ upper: IDBKey, open: Bool = false) -> IDBKeyRange {
        IDBKeyRange(lower: nil, upper: upper, lowerOpen: true, upperOpen: open)
    }

    /// The keys between two bounds.
    ///
    /// - Parameters:
    ///   - lower: the lower bound.
    ///   - upper: the upper bound; not below `lower`, and above it when either end is open.
    ///   - lowerOpen: whether `lower` itself is left out.
    ///   - upperOpen: whether `upper` itself is left out.
    /// - Returns: the range.
    public static func bound(_ lower: IDBKey, _ upper: IDBKey, lowerOpen: Bool = false, upperOpen: Bool = false)
        -> IDBKeyRange
    {
        IDBKeyRange(lower: lower, upper: upper, lowerOpen: lowerOpen, upperOpen: upperOpen)
    }

    /// Whether the range holds a key.
    ///
    /// - Parameter key: the key.
    /// - Returns: `true` when the key is within both bounds.
    public func includes(_ key: IDBKey) -> Bool {
        if let lower {
            let order = IDBKey.compare(lower, key)
            if order > 0 || (order == 0 && lowerOpen) { return false }
        }
        if let upper {
            let order = IDBKey.compare(key, upper)
            if order > 0 || (order == 0 && upperOpen) { return false }
        }
        return true
    }

    /// Checks the bounds are valid keys in order.
    ///
    /// - Throws: `IDBError` `DataError`.
    func validate() throws(IDBError) {
        try lower?.validate()
        try upper?.validate()
        if let lower, let upper {
            let order = IDBKey.compare(lower, upper)
            if order > 0 || (order == 0 && (lowerOpen || upperOpen)) {
                throw IDBError(.data, "the key range \(self) is empty: its lower bound is above its upper bound")
            }
        }
    }

    /// Interval notation: `[1, 5)`, `(-∞, "m"]`.
    public var description: String {
        (lowerOpen ? "(" : "[") + (lower?.description ?? "-∞") + ", " + (upper?.description ?? "+∞")
            + (upperOpen ? ")" : "]")
    }
}
