import Testing

@testable import WebsiteData

/// The memory cache's index of a resource's variants, which keeps the first slot in place.
struct MemoryCacheSlotsTests {
    @Test func variantSlotsKeepTheirOrderThroughRemovals() {
        var slots = HTTPMemoryCache.VariantSlots(7)
        #expect(Array(slots) == [7])
        slots.append(3)
        slots.append(9)
        #expect(Array(slots) == [7, 3, 9])

        // The first taken out: the next one takes its place, the order kept.
        var anyLeft = slots.remove(7)
        #expect(anyLeft)
        #expect(Array(slots) == [3, 9])
        // One that is not there changes nothing.
        anyLeft = slots.remove(42)
        #expect(anyLeft)
        #expect(Array(slots) == [3, 9])
        anyLeft = slots.remove(9)
        #expect(anyLeft)
        #expect(Array(slots) == [3])
        // The last one: nothing left, which the caller takes as the resource gone.
        anyLeft = slots.remove(3)
        #expect(!anyLeft)
    }
}
