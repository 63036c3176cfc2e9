#include "selection/selection_regions.hpp"

#include "selection/box_region.hpp"
#include "selection/chunked_region.hpp"
#include "selection/listed_region.hpp"
#include "selection/run_region.hpp"

namespace iosim {

namespace {

// The decomposition `grid` at `origin` of a chunked dataset, chunk by chunk.
std::shared_ptr<const Region> chunked(const Dataset& ds, const DatasetLayout& layout, const Dataset& grid,
                                      const std::vector<uint64_t>& origin)
{
    auto whole = decomposition_region(0, ds.dims(), ds.element_bytes, grid, origin);
    return std::make_shared<ChunkedRegion>(*std::static_pointer_cast<const BoxRegion>(whole), layout,
                                           ds.element_bytes);
}

}  // namespace

std::shared_ptr<const Region> dataset_region(const Dataset& ds, const DatasetLayout& layout)
{
    if (!layout.chunk_dims.empty())
        return chunked(ds, layout, ds, {});
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
    if (!layout.chunk_dims.empty() && selection.grid)
        return {chunked(ds, layout, selection.decomposition, origin)};
    if (!layout.chunk_dims.empty()) {  // hyperslab runs of a chunked dataset: listed
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
