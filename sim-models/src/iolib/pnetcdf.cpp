#include "iolib/pnetcdf.hpp"

#include <algorithm>

#include "iolib/netcdf_dimensions.hpp"
#include "model/config_keys.hpp"
#include "mpiio/mpi_io.hpp"
#include "selection/listed_region.hpp"

namespace iosim {

namespace {

// CDF-5's field sizes: a tag or a type 4 bytes; a count, length, size or offset 8; a name its
// count and its characters padded to 4.
constexpr uint64_t TAG = 4, COUNT = 8, ABSENT_LIST = TAG + COUNT;
constexpr uint64_t DIMENSION_NAME = 4;  // a dimension's name, at most 4 characters (above)
constexpr uint64_t DEFAULT_HEADER_ALIGN = 512, FORMAT_ALIGN = 4;

uint64_t round_up(uint64_t n, uint64_t to)
{
    return (n + to - 1) / to * to;
}

uint64_t name_bytes(uint64_t characters)
{
    return COUNT + round_up(characters, 4);
}

// An alignment as ncmpio__enddef settles it: the hint if set, else `fallback`, rounded up to 4.
uint64_t alignment(uint64_t hint, uint64_t fallback)
{
    return round_up(hint ? hint : fallback, FORMAT_ALIGN);
}

// The alignment hints of the config's `pnetcdf` block, 0 where it sets none.
struct PnetcdfSettings final : LibrarySettings {
    uint64_t header_align = 0, var_align = 0, record_align = 0;

    void append_words(std::vector<uint64_t>& words) const override
    {
        words.insert(words.end(), {header_align, var_align, record_align});
    }
};

class PnetcdfLibrary final : public IoLibrary {
public:
    const char* name() const override { return "pnetcdf"; }

    const char* config_block() const override { return "pnetcdf"; }

    std::shared_ptr<const LibrarySettings> read_settings(const nlohmann::json& block) const override
    {
        auto s = std::make_shared<PnetcdfSettings>();
        config::apply_block<config::PnetcdfKey>(block, "pnetcdf", [&](config::PnetcdfKey key, const nlohmann::json& v) {
            switch (key) {
            case config::PnetcdfKey::nc_header_align_size: s->header_align = v.get<uint64_t>(); break;
            case config::PnetcdfKey::nc_var_align_size: s->var_align = v.get<uint64_t>(); break;
            case config::PnetcdfKey::nc_record_align_size: s->record_align = v.get<uint64_t>(); break;
            }
        });
        return s;
    }

    FileLayout layout(const FileSession& file, const FileSettings& settings) const override
    {
        static const PnetcdfSettings unset;
        const auto* own = settings.library ? static_cast<const PnetcdfSettings*>(settings.library.get()) : &unset;
        FileLayout layout;
        layout.metadata_bytes = cdf5_header_bytes(file);
        uint64_t var_align = alignment(own->var_align, FORMAT_ALIGN);
        uint64_t end = round_up(layout.metadata_bytes, alignment(own->header_align, DEFAULT_HEADER_ALIGN));
        for (const Dataset& ds : file.datasets) {
            DatasetLayout d;
            d.base = round_up(end, var_align);
            end = d.base + ds.bytes();
            layout.datasets.push_back(d);
        }
        layout.end_of_file = end;
        return layout;
    }

    // The header, written by rank 0 of each instance alone as the file leaves define mode.
    void allocate(const MpiIoContext& ctx, const LibrarySession& session) const override
    {
        auto header = listed({{0, session.layout.metadata_bytes, 0}}, std::max<uint64_t>(1, session.writers));
        mpi_io_write(ctx, session.call(false, {header}));
    }
};

}  // namespace

uint64_t cdf5_header_bytes(const FileSession& session)
{
    uint64_t bytes = TAG + COUNT;  // magic "CDF" 5, the record count
    bytes += ABSENT_LIST + netcdf_dimensions(session).lengths.size() * (name_bytes(DIMENSION_NAME) + COUNT);
    bytes += ABSENT_LIST;  // no global attribute
    bytes += ABSENT_LIST;  // the variable list's tag and count
    for (const Dataset& ds : session.datasets) {
        uint64_t characters = ds.name.size() - (ds.name.rfind('/', 0) == 0 ? 1 : 0);
        bytes += name_bytes(characters) + COUNT + COUNT * ds.dims().size();  // name, dimension ids
        bytes += ABSENT_LIST + TAG + COUNT + COUNT;  // no attribute, its type, size and begin
    }
    return bytes;
}

const IoLibrary& pnetcdf_library()
{
    static const PnetcdfLibrary library;
    return library;
}

}  // namespace iosim
