#include "selection_regions.hpp"

#include "box_region.hpp"
#include "listed_region.hpp"

namespace iosim {

std::shared_ptr<const Region> dataset_region(const Dataset& ds, const DatasetLayout& layout)
{
    if (!layout.chunk_dims.empty()) {
        std::vector<Access> acc;
        dataset_accesses(ds, layout, acc);
        return std::make_shared<ListedRegion>(std::move(acc), ds.writers());
    }
    auto region = decomposition_region(layout.base, ds.dims(), ds.element_bytes, ds, {});
    // dataset_accesses appends a contiguous dataset's runs to what came before, joining touching ones
    std::const_pointer_cast<Region>(region)->joins_previous = true;
    return region;
}

std::vector<std::shared_ptr<const Region>> selection_regions(const Dataset& ds, const DatasetLayout& layout,
                                                             const Selection& selection,
                                                             const std::vector<uint64_t>& origin)
{
    uint64_t writers = selection.grid ? selection.decomposition.writers() : ds.writers();
    if (!layout.chunk_dims.empty()) {
        std::vector<Access> acc;
        box_accesses(ds, layout, selection_boxes(selection, origin), acc);
        sort_by_offset(acc);
        return {std::make_shared<ListedRegion>(std::move(acc), writers)};
    }
    if (selection.grid)
        return {decomposition_region(layout.base, ds.dims(), ds.element_bytes, selection.decomposition, origin)};
    std::vector<std::shared_ptr<const Region>> regions;
    for (const HyperslabRun& run : selection.runs)
        regions.push_back(std::make_shared<RunRegion>(layout.base, ds.dims(), ds.element_bytes, run));
    return regions;
}

}  // namespace iosim
